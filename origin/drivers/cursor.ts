import type { SluiceError } from '../errors.ts';
import type { Value } from '../values.ts';
import { cancelled, timedOut } from './failures.ts';
import type { ColumnMeta, Cursor, RunRequest } from './types.ts';

/**
 * The life of one running statement, shared by every driver: the time limit
 * and the client's abort signal, a cancel that comes while the statement is
 * still starting, the first batch read before `run()` resolves, batches
 * pulled on demand, and a single `finish` that releases the session.
 */

/** How a statement ended: read to its end, closed before its end, or failed/cancelled. */
export type Outcome = 'done' | 'early' | 'failed';

/**
 * A driver's side of a statement. Only `Statement` calls these, never
 * concurrently. `T` is what one pull yields: a batch of rows, or a chunk of
 * lines the database wrote itself (`Driver.streamLines`).
 */
export interface StatementSource<T = Value[][]> {
  /**
   * Sends the statement; resolves with the column metadata once the database
   * accepted it. A cancel that comes while the steps before it run (a BEGIN,
   * a setting, an instance opening) finds nothing for `interrupt` to stop:
   * `cancelled` is then aborted, and `cancelled.throwIfAborted()` before
   * sending the statement throws the statement's cancellation error.
   */
  start(cancelled: AbortSignal): Promise<ColumnMeta[]>;
  /** The next rows (at least one) or chunk, or null once the statement has no more. */
  pull(): Promise<T | null>;
  /** Asks the database to cancel the running statement, if one runs. Best effort; must not throw. */
  interrupt(): void | Promise<void>;
  /**
   * Commits, discards the rest or rolls back, then releases or destroys the
   * session. `interrupted`: a cancel was asked for, which may still land on
   * whatever the session runs next, so the session is not reused. Must not throw.
   */
  finish(outcome: Outcome, interrupted: boolean): Promise<void>;
}

export interface StatementContext {
  request: Pick<RunRequest, 'timeoutMs' | 'signal'>;
  /** Maps a database error (not a timeout or an abort) to the client's error. */
  fail(error: unknown): SluiceError;
  /** True when the database itself reports hitting the time limit (`statement_timeout` and the like). */
  isTimeout?(error: unknown): boolean;
}

/** Starts the statement and reads its first batch; the cursor then streams the rest. */
export async function openCursor<T = Value[][]>(source: StatementSource<T>, context: StatementContext): Promise<Cursor<T>> {
  const statement = new Statement<T>(source, context);
  await statement.open();
  return statement;
}

type StopReason = 'timeout' | 'abort';

class Statement<T> implements Cursor<T> {
  columns: ColumnMeta[] = [];
  readonly batches: AsyncIterable<T>;
  private buffered: T | null = null;
  private stopReason: StopReason | null = null;
  private failure: SluiceError | null = null;
  private inflight: Promise<unknown> | null = null;
  private finished: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Aborted by the first cancel: a start still under way throws at its next step, and `finish` is told. */
  private readonly cancel = new AbortController();
  private readonly onAbort = () => this.stop('abort');

  constructor(
    private readonly source: StatementSource<T>,
    private readonly context: StatementContext,
  ) {
    this.batches = {
      [Symbol.asyncIterator]: () => ({
        next: () => this.next(),
        return: async () => {
          await this.close();
          return { done: true, value: undefined };
        },
      }),
    };
  }

  async open(): Promise<void> {
    const { timeoutMs, signal } = this.context.request;
    if (signal.aborted) {
      await this.finish('failed');
      throw cancelled();
    }
    signal.addEventListener('abort', this.onAbort, { once: true });
    if (timeoutMs > 0) {
      this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
      this.timer.unref();
    }
    try {
      this.columns = await this.track(this.source.start(this.cancel.signal));
      const first = await this.track(this.source.pull());
      if (this.stopReason) throw new Error('stopped');
      if (first === null) await this.finish('done');
      else this.buffered = first;
    } catch (error) {
      const failure = this.failure ?? this.mapError(error);
      await this.finish('failed');
      throw failure;
    }
  }

  async close(): Promise<void> {
    if (!this.finished && this.inflight) {
      this.interrupt();
      await this.inflight.catch(() => {});
    }
    this.buffered = null;
    await this.finish('early');
  }

  private async next(): Promise<IteratorResult<T>> {
    if (this.buffered) {
      const rows = this.buffered;
      this.buffered = null;
      return { value: rows, done: false };
    }
    if (this.finished) {
      await this.finished;
      if (this.failure) throw this.failure;
      return { value: undefined, done: true };
    }
    if (this.stopReason) return this.fail(null);
    let rows: T | null;
    try {
      rows = await this.track(this.source.pull());
    } catch (error) {
      return this.fail(error);
    }
    // Stopped while the pull was under way: an interrupted source may end quietly, which is no end of its rows.
    if (this.stopReason) return this.fail(null);
    if (rows === null) {
      await this.finish('done');
      return { value: undefined, done: true };
    }
    return { value: rows, done: false };
  }

  private async fail(error: unknown): Promise<never> {
    this.failure ??= this.mapError(error);
    await this.finish('failed');
    throw this.failure;
  }

  /** The time limit or the client's abort: cancel in the database, and release at once if nothing is in flight. */
  private stop(reason: StopReason): void {
    if (this.stopReason || this.finished) return;
    this.stopReason = reason;
    this.interrupt();
    if (!this.inflight) {
      this.buffered = null;
      this.failure = this.mapError(null);
      void this.finish('failed');
    }
  }

  /** Marks the statement cancelled (with its error: the time limit's or the abort's), then asks the source to cancel what runs. */
  private interrupt(): void {
    if (!this.cancel.signal.aborted) this.cancel.abort(this.stopReason ? this.mapError(null) : cancelled());
    try {
      void Promise.resolve(this.source.interrupt()).catch(() => {});
    } catch {
      // best effort: the session is destroyed on finish either way
    }
  }

  private mapError(error: unknown): SluiceError {
    if (this.stopReason === 'timeout' || (error !== null && this.context.isTimeout?.(error))) {
      return timedOut(this.context.request.timeoutMs);
    }
    if (this.stopReason === 'abort') return cancelled();
    return this.context.fail(error);
  }

  private track<R>(promise: Promise<R>): Promise<R> {
    this.inflight = promise;
    const clear = () => {
      if (this.inflight === promise) this.inflight = null;
    };
    promise.then(clear, clear);
    return promise;
  }

  private finish(outcome: Outcome): Promise<void> {
    if (!this.finished) {
      if (this.timer) clearTimeout(this.timer);
      this.context.request.signal.removeEventListener('abort', this.onAbort);
      this.finished = this.source.finish(outcome, this.cancel.signal.aborted).catch(() => {});
    }
    return this.finished;
  }
}

/** Every row of a cursor, batch by batch; the cursor is closed after, whether or not reading succeeded. */
export async function readAll(cursor: Cursor<Value[][]>): Promise<Value[][]> {
  const rows: Value[][] = [];
  try {
    for await (const batch of cursor.batches) rows.push(...batch);
  } finally {
    await cursor.close();
  }
  return rows;
}
