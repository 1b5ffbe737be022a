import type { ColumnMeta, LineFormat, ParquetStream, RunDialect } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { type ObservedQuery, observeQuery } from '../../observability/query-log.ts';
import type { RequestScope } from '../../observability/request-context.ts';
import type { QueryPlace } from '../../observability/tracing/query-span.ts';
import type { Value } from '../../values.ts';
import type { RowOptions } from './options.ts';
import type { WindowedPage } from './window.ts';

/**
 * What the SQL engine (sql.ts) and the document engine (find.ts) share:
 * the query log line and metrics of a statement, the connection's usage
 * counters, and a stream's life (its cap, its cursor closed exactly once,
 * its run counted when the consumer finishes, fails, stops or never reads).
 * The engines differ only in how a cursor opens and how its rows take shape.
 */

interface RunBase {
  connection: string;
  dialect: RunDialect;
  columns: ColumnMeta[];
}

export interface PageRun extends RunBase, WindowedPage {}

/**
 * Rows as values for the format's serializer, the finished lines' bytes when
 * the database wrote them itself, or the bytes of the whole parquet file the
 * database wrote.
 */
export type StreamBody =
  | { kind: 'rows'; batches: AsyncIterable<Value[][]> }
  | { kind: 'lines'; format: LineFormat; chunks: AsyncIterable<Uint8Array> }
  | { kind: 'file'; path: string; files?: ParquetStream['files']; chunks: AsyncIterable<Uint8Array> };

export interface StreamRun extends RunBase {
  body: StreamBody;
  /** Rows passed to the consumer so far (all of them once the body is read to its end). */
  rows(): number;
  /** Whether a row cap (SLUICE_STREAM_MAX_ROWS, the key's `max_rows`) cut the rows: read once the body has ended. */
  capped(): boolean;
  /** Closes the cursor of a body never read (reading it, or stopping it, closes it otherwise). */
  abandon(): Promise<void>;
  /** Closes the cursor of a `file` body taken from its path rather than read, counting the run as done. */
  complete(): Promise<void>;
  /** Document CSV/TSV streams: distinct fields first seen after the columns were fixed, left out of every row. */
  fieldsDropped?(): number;
}

/** A statement under way: its log line written, its end still to be counted. */
export interface Begun {
  connection: string;
  dialect: RunDialect;
  scope: RequestScope;
  /** Counts the run in the connection's usage and the metrics; once, whatever calls it again. `error`: what failed it, if known. */
  end(ok: boolean, rows: number, capped?: boolean, error?: unknown): void;
}

/** Logs the statement's start (`text` is hashed, never logged) and returns how its end is counted. */
export function begin(deps: AppDeps, scope: RequestScope, run: { connection: string; dialect: RunDialect; text: string; options: RowOptions; place?: QueryPlace }): Begun {
  const observed: ObservedQuery = observeQuery(deps, scope, {
    connection: run.connection,
    dialect: run.dialect,
    sql: run.text,
    paging: run.options.paging,
    timeoutMs: run.options.timeoutMs,
    place: run.place,
  });
  const t0 = performance.now();
  let ended = false;
  return {
    connection: run.connection,
    dialect: run.dialect,
    scope,
    end(ok, rows, capped = false, error) {
      if (ended) return;
      ended = true;
      deps.usage.record(run.connection, { ok, rows, durationMs: performance.now() - t0 });
      observed.end({ ok, rows, capped, error });
    },
  };
}

/** A stream's body before its life is attached: what it yields, how many rows went by, and whether a cap cut it. */
export type ShapedBody =
  | { kind: 'rows'; batches: AsyncIterable<Value[][]>; rows(): number; capped(): boolean }
  | { kind: 'lines'; format: LineFormat; chunks: AsyncIterable<Uint8Array>; rows(): number; capped(): boolean }
  | { kind: 'file'; path: string; files?: ParquetStream['files']; chunks: AsyncIterable<Uint8Array>; rows(): number; capped(): boolean };

/**
 * A stream over an open cursor: `close` runs exactly once, when the body is
 * read to its end, fails, is stopped, or is abandoned unread; the run is
 * counted then, and a capped stream logs where it stopped.
 */
export function streamRun(deps: AppDeps, begun: Begun, options: RowOptions, shaped: ShapedBody, columns: ColumnMeta[], close: () => Promise<void>): StreamRun {
  let begunReading = false;
  async function* counted<T>(items: AsyncIterable<T>) {
    begunReading = true;
    let ok = false;
    let failure: unknown;
    try {
      yield* items;
      ok = true;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      await close();
      begun.end(ok, shaped.rows(), shaped.capped(), failure);
      if (shaped.capped()) {
        deps.logger.warn({ ...begun.scope, connection: begun.connection, rows: shaped.rows() }, `stream stopped at ${options.streamCap ?? 'SLUICE_STREAM_MAX_ROWS'}`);
      }
    }
  }
  const body: StreamBody =
    shaped.kind === 'rows'
      ? { kind: 'rows', batches: counted(shaped.batches) }
      : shaped.kind === 'lines'
        ? { kind: 'lines', format: shaped.format, chunks: counted(shaped.chunks) }
        : { kind: 'file', path: shaped.path, files: shaped.files, chunks: counted(shaped.chunks) };
  const closeUnread = async (ok: boolean) => {
    if (begunReading) return;
    begunReading = true;
    await close();
    begun.end(ok, ok ? shaped.rows() : 0);
  };
  return {
    connection: begun.connection,
    dialect: begun.dialect,
    columns,
    body,
    rows: () => shaped.rows(),
    capped: () => shaped.capped(),
    abandon: () => closeUnread(false),
    async complete() {
      if (shaped.kind !== 'file') throw new Error('only a file body is taken from its path');
      await closeUnread(true);
    },
  };
}

/** Reads a page with `read`, closing the cursor and counting the run whatever happens. */
export async function pageRun<T extends { rows: unknown[] }>(begun: Begun, read: () => Promise<T>, close: () => Promise<void>): Promise<T> {
  let ok = false;
  let rows = 0;
  let failure: unknown;
  try {
    const page = await read();
    ok = true;
    rows = page.rows.length;
    return page;
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    await close();
    begun.end(ok, rows, false, failure);
  }
}
