import { EventEmitter } from 'node:events';
import { lt, sql } from 'drizzle-orm';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/open.ts';
import { runs } from '../../store/schema/index.ts';

/** One finished run, as it is queued, stored and announced. */
export interface RunEntry {
  /** When the run finished (a stream: when its download ended). */
  time: Date;
  /** Null for an ad-hoc `/execute_sql` run. */
  query: string | null;
  version: number | null;
  connection: string;
  status: 'success' | 'error';
  rows: number;
  durationMs: number;
  /** Paged runs only: a stream serialises while it reads. */
  serializationMs: number | null;
  requestId: string | null;
  /** The caller's name (`admin`, a key's name, `-`), never a secret. */
  keyName: string | null;
  /** `http` (a page), `stream` (stream=true); later `export`. */
  transport: string;
  format: string | null;
  /** Failed runs: a short message (the database's own, credentials removed). */
  error: string | null;
}

export interface RecorderOptions {
  /** Days runs are kept; 0 keeps them forever. */
  retentionDays: number;
  logger: Pick<Logger, 'warn' | 'error'>;
  flushIntervalMs?: number;
  batchSize?: number;
  /** Old runs are deleted during flushes at most this often. */
  trimIntervalMs?: number;
  /** Runs kept in memory while the store refuses writes; past it the oldest are dropped. */
  maxQueued?: number;
  now?: () => number;
}

const DAY_MS = 86_400_000;

/**
 * Run history, written off the request path: `record` only queues (and
 * announces the run to `on('run')` listeners); the queue is written in
 * batches, one transaction per flush, every `flushIntervalMs` or as soon as
 * `batchSize` runs wait. The embedded store runs on the server's own thread,
 * so a request never waits for a history write. Old runs are trimmed in the
 * same transactions, at most once per `trimIntervalMs`. `close()` writes
 * whatever is still queued: call it before the store closes.
 */
export class HistoryRecorder {
  private readonly events = new EventEmitter();
  private queue: RunEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private lastTrim = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly flushIntervalMs: number;
  private readonly batchSize: number;
  private readonly trimIntervalMs: number;
  private readonly maxQueued: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<Store, 'db'>,
    private readonly options: RecorderOptions,
  ) {
    // Each flush is one store transaction, whose fixed cost (on the embedded store, on this
    // thread) outweighs its rows; readers flush first (list.ts), so a longer wait costs no one.
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.trimIntervalMs = options.trimIntervalMs ?? 60_000;
    this.maxQueued = options.maxQueued ?? 50_000;
    this.now = options.now ?? Date.now;
    // Listeners are optional observers (SSE clients come and go): never warn about how many.
    this.events.setMaxListeners(0);
  }

  /** Queues a finished run and announces it. Never throws, never waits. */
  record(entry: RunEntry): void {
    if (this.closed) {
      this.options.logger.warn({ request_id: entry.requestId }, 'run finished after history was closed: not recorded');
      return;
    }
    this.queue.push(entry);
    if (this.queue.length > this.maxQueued) {
      const dropped = this.queue.splice(0, this.queue.length - this.maxQueued);
      this.options.logger.warn({ dropped: dropped.length }, 'run history queue full: oldest runs dropped');
    }
    try {
      this.events.emit('run', entry);
    } catch (err) {
      this.options.logger.error({ err: { message: (err as Error).message } }, 'a run listener failed');
    }
    if (this.queue.length >= this.batchSize) this.schedule(0);
    else this.schedule(this.flushIntervalMs);
  }

  on(event: 'run', listener: (run: RunEntry) => void): this {
    this.events.on(event, listener);
    return this;
  }

  off(event: 'run', listener: (run: RunEntry) => void): this {
    this.events.off(event, listener);
    return this;
  }

  /** Runs queued and not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued now (and trims when due). Resolves when written or given up on. */
  flush(): Promise<void> {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /** Stops the timer and writes what is queued; later runs are not recorded. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A flush in progress first, then whatever arrived meanwhile.
    await this.flush();
    if (this.queue.length > 0) await this.flush();
    this.closed = true;
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    // Shutdown flushes explicitly; a pending timer never keeps the process alive.
    this.timer.unref();
  }

  /** The cut-off time when a trim is due, else null. */
  private trimDue(now: number): Date | null {
    if (this.options.retentionDays <= 0 || now - this.lastTrim < this.trimIntervalMs) return null;
    return new Date(now - this.options.retentionDays * DAY_MS);
  }

  private async drain(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    do {
      const batch = this.queue.splice(0, this.batchSize);
      const now = this.now();
      const cutoff = this.trimDue(now);
      if (batch.length === 0 && cutoff === null) return;
      try {
        await this.store.db.transaction(async (tx) => {
          if (batch.length > 0) await tx.execute(insertRuns(batch));
          if (cutoff) await tx.delete(runs).where(lt(runs.time, cutoff));
        });
        if (cutoff) this.lastTrim = now;
      } catch (err) {
        // Kept for the next flush; the store may be restarting.
        this.queue.unshift(...batch);
        this.options.logger.error({ err: { message: (err as Error).message }, queued: this.queue.length }, 'could not write run history');
        if (!this.closed) this.schedule(Math.max(this.flushIntervalMs, 1000));
        return;
      }
    } while (this.queue.length > 0);
  }
}

/**
 * One INSERT for the whole batch with the rows as a single JSON parameter:
 * on the embedded store about a quarter of the cost of a multi-row VALUES
 * insert with thirteen bound parameters per row (measured: 24 vs 85 µs a row).
 */
function insertRuns(batch: RunEntry[]) {
  const rows = batch.map((entry) => ({
    time: entry.time.toISOString(),
    query: entry.query,
    version: entry.version,
    connection: entry.connection,
    status: entry.status,
    rows: entry.rows,
    duration_ms: entry.durationMs,
    serialization_ms: entry.serializationMs,
    request_id: entry.requestId,
    key_name: entry.keyName,
    transport: entry.transport,
    format: entry.format,
    error: entry.error,
  }));
  return sql`insert into runs (time, query, version, connection, status, rows, duration_ms, serialization_ms, request_id, key_name, transport, format, error)
    select time, query, version, connection, status, rows, duration_ms, serialization_ms, request_id, key_name, transport, format, error
    from json_populate_recordset(null::runs, ${JSON.stringify(rows)}::json)`;
}
