/**
 * Sessions of one driver instance. At most `size` sessions wait idle (any
 * number may be busy); an idle one closes after `idleTimeoutMs`. `size` 0
 * means no pooling: a session is opened per run and closed after it.
 */

export interface PoolOptions {
  size: number;
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

export class SessionPool<S> {
  private readonly idle: IdleEntry<S>[] = [];
  private readonly busy = new Set<S>();
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

  async acquire(): Promise<S> {
    if (this.closed) throw new Error('The driver has been closed');
    for (let entry = this.idle.pop(); entry; entry = this.idle.pop()) {
      if (entry.timer) clearTimeout(entry.timer);
      if (this.factory.alive && !this.factory.alive(entry.session)) {
        void this.factory.destroy(entry.session);
        continue;
      }
      this.busy.add(entry.session);
      return entry.session;
    }
    const session = await this.factory.open();
    if (this.closed) {
      await this.factory.destroy(session);
      throw new Error('The driver has been closed');
    }
    this.busy.add(session);
    return session;
  }

  /**
   * Hands a session back. `reusable` false (it errored fatally, or was cancelled
   * mid-statement) destroys it. Resolves once a destroyed session is closed.
   */
  async release(session: S, reusable: boolean): Promise<void> {
    if (!this.busy.delete(session)) return;
    const keep =
      reusable &&
      !this.closed &&
      this.idle.length < this.options.size &&
      (!this.factory.alive || this.factory.alive(session));
    if (!keep) {
      await this.factory.destroy(session);
      return;
    }
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

  /** Closes idle sessions now; busy ones are destroyed when released. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = this.idle.splice(0);
    await Promise.all(
      entries.map((entry) => {
        if (entry.timer) clearTimeout(entry.timer);
        return this.factory.destroy(entry.session);
      }),
    );
  }
}
