import { hostname } from 'node:os';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { NO_REQUEST } from '../../observability/request-context.ts';
import { results } from '../../store/schema/index.ts';

interface Running {
  controller: AbortController;
  /** Settles when the result's writing has ended, whatever its outcome. */
  ended: Promise<void>;
}

/**
 * The results this origin writes: at most SLUICE_RESULTS_MAX_RUNNING at
 * once, the rest waiting in order (`queued`); each cancellable by id
 * (`DELETE /results/{id}`); their lease renewed every third of
 * SLUICE_RESULT_LEASE while the process lives, so another origin can tell a
 * result whose origin died (services/results/sweep.ts).
 */
export class ResultRunner {
  readonly holder = `${hostname()}:${process.pid}`;
  private readonly running = new Map<string, Running>();
  private readonly waiting: Array<() => void> = [];
  private active = 0;
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AppDeps) {}

  /** A place to run now, or null when every place is taken. */
  tryPlace(): (() => void) | null {
    if (this.active >= this.deps.env.SLUICE_RESULTS_MAX_RUNNING) return null;
    this.active++;
    return this.releaser();
  }

  /** A place, once one frees: in order of asking. Aborting gives up the turn. */
  place(signal: AbortSignal): Promise<() => void> {
    const now = this.tryPlace();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        this.active++;
        resolve(this.releaser());
      };
      const leave = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(turn);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }

  /** Runs `work` for result `id` under its controller; the lease is renewed while any result runs here. */
  track(id: string, controller: AbortController, work: () => Promise<void>): void {
    const ended = work().finally(() => {
      this.running.delete(id);
      if (this.running.size === 0) this.stopRenewing();
    });
    this.running.set(id, { controller, ended: ended.catch(() => {}) });
    this.startRenewing();
  }

  /** Resolves once the result's writing has ended, or after `ms`; true when it has ended (or is not written here). */
  async settled(id: string, ms: number): Promise<boolean> {
    const running = this.running.get(id);
    if (!running) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([running.ended.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops a result written here and waits until its writing has ended; false when none runs here under that id. */
  async cancel(id: string, reason: unknown): Promise<boolean> {
    const running = this.running.get(id);
    if (!running) return false;
    running.controller.abort(reason);
    await running.ended;
    return true;
  }

  /** Stops every result written here (the origin is stopping). */
  async stop(reason: unknown): Promise<void> {
    const all = [...this.running.values()];
    for (const running of all) running.controller.abort(reason);
    await Promise.all(all.map((running) => running.ended));
    this.stopRenewing();
  }

  private startRenewing(): void {
    if (this.renewal) return;
    const seconds = this.deps.env.SLUICE_RESULT_LEASE;
    this.renewal = setInterval(() => {
      const ids = [...this.running.keys()];
      if (ids.length === 0) return;
      this.deps.store.db
        .update(results)
        .set({ leaseExpires: sql`now() + make_interval(secs => ${seconds})` })
        .where(and(inArray(results.id, ids), eq(results.origin, this.holder)))
        .catch((err: Error) => this.deps.logger.warn({ ...NO_REQUEST, err: { message: err.message } }, 'result lease renewal failed; retrying'));
    }, (seconds * 1000) / 3);
    this.renewal.unref();
  }

  private stopRenewing(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }
}

const runners = new WeakMap<AppDeps, ResultRunner>();

export function resultRunner(deps: AppDeps): ResultRunner {
  let runner = runners.get(deps);
  if (!runner) {
    runner = new ResultRunner(deps);
    runners.set(deps, runner);
  }
  return runner;
}
