/**
 * Sessions of one driver instance: at most `max` open at once, busy or idle.
 * A caller that finds them all busy waits its turn (first come, first
 * served), so steady load reuses sessions instead of opening new ones. At
 * most `size` wait idle; an idle one closes after `idleTimeoutMs`. `size` 0
 * means no idle sessions: each is closed after its use.
 */

export interface PoolOptions {
  size: number;
  /** Sessions open at once, busy and idle (SLUICE_POOL_MAX); at least 1. */
  max: number;
  idleTimeoutMs: number;
}

export interface SessionFactory<S> {
  open(): Promise<S>;
  /** Must not throw: the session is being thrown away. */
  destroy(session: S): Promise<void>;
  /** False when a session broke while it waited idle; it is then destroyed instead of handed out. */
  alive?(session: S): boolean;
}

interface IdleEntry<S> {
  session: S;
  timer: NodeJS.Timeout | null;
}

interface Waiter<S> {
  /** False when the caller has stopped waiting (its signal or time limit): the session is not theirs. */
  resolve(session: S): boolean;
  reject(error: unknown): void;
}

/** How long a caller may wait for its turn: until `signal` aborts or `timeoutMs` passes (0: no limit), then `onTimeout()` is thrown. */
export interface WaitLimit {
  signal?: AbortSignal;
  timeoutMs?: number;
  onTimeout?: () => unknown;
}

export class SessionPool<S> {
  private readonly idle: IdleEntry<S>[] = [];
  private readonly busy = new Set<S>();
  private readonly waiters: Waiter<S>[] = [];
  /** Sessions being opened or destroyed: they count against `max` until they are busy or gone. */
  private pending = 0;
  /** Busy sessions on their way back (`releaseAfter`): a caller waits for one rather than open another. */
  private returning = 0;
  private closed = false;

  constructor(
    private readonly factory: SessionFactory<S>,
    private readonly options: PoolOptions,
  ) {}

  /** Sessions waiting idle now. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Sessions handed out and not yet released. */
  get busyCount(): number {
    return this.busy.size;
  }

  /** Callers waiting for a session. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /**
   * A session: an idle one, a new one while fewer than `max` are open, or
   * the next one released. `limit` ends a wait (the signal's reason, or
   * `onTimeout()`, is thrown); a session already handed out is not taken
   * back. Nothing is set up for a caller that does not wait.
   */
  async acquire(limit: WaitLimit = {}): Promise<S> {
    if (this.closed) throw new Error('The driver has been closed');
    const { signal } = limit;
    signal?.throwIfAborted();
    const warm = this.takeIdle();
    if (warm !== undefined) return warm;
    if (this.openCount() < this.options.max && this.returning <= this.waiters.length) return this.open();
    return new Promise<S>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = () => {
        settled = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const giveUp = (error: unknown) => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        settle();
        reject(error);
      };
      const onAbort = () => giveUp(signal!.reason);
      const waiter: Waiter<S> = {
        resolve: (session) => {
          if (settled) return false;
          settle();
          resolve(session);
          return true;
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (limit.timeoutMs) timer = setTimeout(() => giveUp(limit.onTimeout ? limit.onTimeout() : new Error('Timed out waiting for a session')), limit.timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * Hands a session back: to the first caller waiting, else to the idle
   * ones. `reusable` false (it errored fatally, or was cancelled
   * mid-statement) destroys it, and a waiting caller gets a new one.
   * Resolves once a destroyed session is closed.
   */
  async release(session: S, reusable: boolean): Promise<void> {
    if (!this.busy.delete(session)) return;
    const keep = reusable && !this.closed && (!this.factory.alive || this.factory.alive(session));
    if (keep) {
      for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) {
        this.busy.add(session);
        if (waiter.resolve(session)) return;
        this.busy.delete(session);
      }
      if (this.idle.length < this.options.size) {
        this.park(session);
        return;
      }
    }
    this.pending++;
    try {
      await this.factory.destroy(session);
    } finally {
      this.pending--;
      this.serveWaiter();
    }
  }

  /**
   * Hands a session back once `reset` settles: true, it may serve again;
   * false or a rejection, it is destroyed. Meanwhile it counts as on its
   * way back, so that a caller waits for it rather than open a new session:
   * a statement's answer need not wait for its session's reset, and the next
   * caller still gets the same session.
   */
  async releaseAfter(session: S, reset: Promise<boolean>): Promise<void> {
    if (!this.busy.has(session)) return;
    this.returning++;
    const reusable = await reset.catch(() => false);
    this.returning--;
    await this.release(session, reusable);
  }

  /** Closes idle sessions now; busy ones are destroyed when released, and waiting callers are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('The driver has been closed'));
    const entries = this.idle.splice(0);
    await Promise.all(
      entries.map((entry) => {
        if (entry.timer) clearTimeout(entry.timer);
        return this.factory.destroy(entry.session);
      }),
    );
  }

  private openCount(): number {
    return this.busy.size + this.idle.length + this.pending;
  }

  private takeIdle(): S | undefined {
    for (let entry = this.idle.pop(); entry; entry = this.idle.pop()) {
      if (entry.timer) clearTimeout(entry.timer);
      if (this.factory.alive && !this.factory.alive(entry.session)) {
        void this.factory.destroy(entry.session);
        continue;
      }
      this.busy.add(entry.session);
      return entry.session;
    }
    return undefined;
  }

  private async open(): Promise<S> {
    this.pending++;
    let session: S;
    try {
      session = await this.factory.open();
    } catch (error) {
      this.pending--;
      this.serveWaiter();
      throw error;
    }
    this.pending--;
    if (this.closed) {
      await this.factory.destroy(session);
      throw new Error('The driver has been closed');
    }
    this.busy.add(session);
    return session;
  }

  /** A place came free (a session destroyed, or one that failed to open): the first waiting caller opens a new one. */
  private serveWaiter(): void {
    if (this.closed || this.waiters.length === 0 || this.openCount() >= this.options.max) return;
    const waiter = this.waiters.shift()!;
    // The caller may stop waiting while its session opens: the session then goes back, or it would stay busy for good.
    this.open().then((session) => {
      if (!waiter.resolve(session)) void this.release(session, true);
    }, waiter.reject);
  }

  private park(session: S): void {
    const entry: IdleEntry<S> = { session, timer: null };
    if (this.options.idleTimeoutMs > 0) {
      entry.timer = setTimeout(() => this.expire(entry), this.options.idleTimeoutMs);
      entry.timer.unref();
    }
    this.idle.push(entry);
  }

  private expire(entry: IdleEntry<S>): void {
    const index = this.idle.indexOf(entry);
    if (index < 0) return;
    this.idle.splice(index, 1);
    void this.factory.destroy(entry.session);
  }
}
