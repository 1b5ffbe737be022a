import { EventEmitter } from 'node:events';
import { lt, sql } from 'drizzle-orm';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/open.ts';
import { BatchWriter } from '../../store/batch-writer.ts';
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
  /** The run's trace, when tracing was on. */
  traceId?: string | null;
  /** The caller's name (`admin`, a key's name, `-`), never a secret. */
  keyName: string | null;
  /** `http` (a page), `stream` (stream=true), `export`, `mcp` (an MCP tool call). */
  transport: string;
  format: string | null;
  /** Failed runs: a short message (the database's own, credentials removed). */
  error: string | null;
  /** Export runs: the export, destination, object and watermark. */
  details?: Record<string, unknown> | null;
}

export interface RecorderOptions {
  /** Days runs are kept; 0 keeps them forever. */
  retentionDays: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
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
 * Run history, written off the request path (ADR 0005): `record` only queues
 * (and announces the run to `on('run')` listeners); a batch writer writes the
 * queue, one transaction per batch, every `flushIntervalMs` or as soon as
 * `batchSize` runs wait. Old runs are trimmed in the same transactions, at
 * most once per `trimIntervalMs`. `close()` writes whatever is still queued:
 * call it before the store closes.
 */
export class HistoryRecorder {
  private readonly events = new EventEmitter();
  private readonly writer: BatchWriter<RunEntry>;
  private lastTrim = Number.NEGATIVE_INFINITY;
  private readonly trimIntervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<Store, 'db'>,
    private readonly options: RecorderOptions,
  ) {
    this.trimIntervalMs = options.trimIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.writer = new BatchWriter<RunEntry>({
      what: 'run history',
      write: (batch) => this.write(batch),
      logger: options.logger,
      // Each flush is one store transaction, whose fixed cost (on the embedded store, on this
      // thread) outweighs its rows; readers flush first (list.ts), so a longer wait costs no one.
      flushIntervalMs: options.flushIntervalMs ?? 1000,
      batchSize: options.batchSize ?? 500,
      maxQueued: options.maxQueued ?? 50_000,
      dueWhenEmpty: () => this.trimDue(this.now()) !== null,
    });
    // Listeners are optional observers (SSE clients come and go): never warn about how many.
    this.events.setMaxListeners(0);
  }

  /** Queues a finished run and announces it. Never throws, never waits. */
  record(entry: RunEntry): void {
    if (!this.writer.add(entry)) {
      this.options.logger.warn({ request_id: entry.requestId }, 'run finished after history was closed: not recorded');
      return;
    }
    try {
      this.events.emit('run', entry);
    } catch (err) {
      this.options.logger.error({ err: { message: (err as Error).message } }, 'a run listener failed');
    }
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
    return this.writer.size;
  }

  /** Writes everything queued now (and trims when due). Resolves when written or given up on. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Writes what is queued; later runs are not recorded. */
  close(): Promise<void> {
    return this.writer.close();
  }

  /** The cut-off time when a trim is due, else null. */
  private trimDue(now: number): Date | null {
    if (this.options.retentionDays <= 0 || now - this.lastTrim < this.trimIntervalMs) return null;
    return new Date(now - this.options.retentionDays * DAY_MS);
  }

  private async write(batch: RunEntry[]): Promise<void> {
    const now = this.now();
    const cutoff = this.trimDue(now);
    await this.store.db.transaction(async (tx) => {
      if (batch.length > 0) await tx.execute(insertRuns(batch));
      if (cutoff) await tx.delete(runs).where(lt(runs.time, cutoff));
    });
    if (cutoff) this.lastTrim = now;
  }
}

/**
 * One INSERT for the whole batch with the rows as a single JSON parameter:
 * on the embedded store a fraction of the cost of a multi-row VALUES insert
 * with thirteen bound parameters per row (ADR 0005).
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
    trace_id: entry.traceId ?? null,
    key_name: entry.keyName,
    transport: entry.transport,
    format: entry.format,
    error: entry.error,
    details: entry.details ?? null,
  }));
  return sql`insert into runs (time, query, version, connection, status, rows, duration_ms, serialization_ms, request_id, trace_id, key_name, transport, format, error, details)
    select time, query, version, connection, status, rows, duration_ms, serialization_ms, request_id, trace_id, key_name, transport, format, error, details
    from json_populate_recordset(null::runs, ${JSON.stringify(rows)}::json)`;
}
