import { listenChannel } from '../../access/directory-listener.ts';
import type { AppDeps } from '../../deps.ts';
import { MCP_SESSIONS_CHANNEL } from '../../services/mcp/session-records.ts';

/** How long an origin that ended a session waits to hear the end come back before answering. */
const ECHO_WAIT_MS = 2000;

/**
 * How an origin learns that a session it holds in memory was ended on
 * another (ADR 0033), as the access directory learns of revoked keys: on a
 * shared store it LISTENs for the ends (`MCP_SESSIONS_CHANNEL`, sent with
 * each end's commit), and uses a session held in memory without asking the
 * store only while that listener is connected and the session was checked
 * in the store since it (re)connected (`generation`: ends sent while it was
 * away are lost). Otherwise a request checks its session in the store. The
 * embedded store belongs to one origin: memory is always right.
 */
export class SessionEnds {
  /** Whether a session held in memory may be used without asking the store, when checked in this `generation`. */
  live: boolean;
  /** Grows each time the listener (re)connects. */
  generation = 0;
  private readonly waiters = new Map<string, Array<() => void>>();

  constructor(
    deps: AppDeps,
    /** A session ended elsewhere (or here: an origin hears its own ends too). */
    private readonly onEnd: (hash: string) => void,
  ) {
    const shared = deps.store.kind === 'postgres';
    this.live = !shared;
    if (!shared || !deps.env.SLUICE_DATABASE_URL) return;
    listenChannel(
      deps.env.SLUICE_DATABASE_URL,
      MCP_SESSIONS_CHANNEL,
      {
        onMessage: (hash) => this.heard(hash),
        onUp: () => {
          this.generation++;
          this.live = true;
        },
        onDown: () => {
          this.live = false;
        },
      },
      deps.logger,
      'MCP sessions',
    ).catch((err: Error) => deps.logger.warn({ err: err.message }, 'MCP sessions listener failed to start'));
  }

  private heard(hash: string): void {
    this.onEnd(hash);
    const waiting = this.waiters.get(hash);
    this.waiters.delete(hash);
    for (const resolve of waiting ?? []) resolve();
  }

  /**
   * Taken before ending session `hash`: resolves once this origin hears that
   * end (at most 2 s). The other origins' listeners are sent it at the same
   * commit, so by then their next request for the session finds it gone. At
   * once when nothing listens.
   */
  expect(hash: string): Promise<void> {
    if (!this.live) return Promise.resolve();
    const waiting = this.waiters.get(hash) ?? [];
    this.waiters.set(hash, waiting);
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(done), 1);
        if (waiting.length === 0 && this.waiters.get(hash) === waiting) this.waiters.delete(hash);
        resolve();
      }, ECHO_WAIT_MS);
      waiting.push(done);
    });
  }
}
