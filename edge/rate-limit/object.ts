import { DurableObject } from 'cloudflare:workers';
import { type WindowDecision, type WindowState, consume, isLive, stateLifetimeMs } from '../../shared/access/window.ts';
import type { EdgeBindings } from '../env.ts';

/**
 * The counts of one limited subject (`ip:<address>` or `key:<id>`), one
 * object per subject: every request of the subject is decided here, one at
 * a time, by the window arithmetic the origin uses (shared/access/window.ts),
 * so counts are exact however many Worker instances ask at once. State is
 * kept in storage (one entry per window length) and forgotten by an alarm
 * once nothing in it counts any more.
 */
export class RateLimiterObject extends DurableObject<EdgeBindings> {
  private readonly windows = new Map<number, WindowState>();

  constructor(ctx: ConstructorParameters<typeof DurableObject<EdgeBindings>>[0], env: EdgeBindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      for (const [name, state] of await ctx.storage.list<WindowState>({ prefix: 'w:' })) this.windows.set(Number(name.slice(2)), state);
    });
  }

  /** Decides one request under `limit` per `windowMs`, counting it when allowed. */
  hit(limit: number, windowMs: number): WindowDecision {
    const now = Date.now();
    const { state, decision } = consume(this.windows.get(windowMs) ?? [], { limit, windowMs }, now);
    this.windows.set(windowMs, state);
    // Not awaited: the answer leaves only once the write is stored.
    void this.ctx.storage.put(`w:${windowMs}`, state);
    void this.ctx.storage.setAlarm(now + stateLifetimeMs({ windowMs }));
    return decision;
  }

  async alarm(): Promise<void> {
    const now = Date.now();
    const live = [...this.windows].filter(([windowMs, state]) => isLive(state, { windowMs }, now));
    if (live.length > 0) {
      await this.ctx.storage.setAlarm(now + Math.max(...live.map(([windowMs]) => stateLifetimeMs({ windowMs }))));
      return;
    }
    this.windows.clear();
    await this.ctx.storage.deleteAll();
  }
}
