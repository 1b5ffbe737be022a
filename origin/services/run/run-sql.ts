import type { ColumnMeta, Driver, LineFormat, LineStream, ParquetStream, RowCursor, RunDialect, RunRequest } from '../../drivers/types.ts';
import { rowGroupRows } from '../../formats/parquet.ts';
import { capLines } from '../../formats/line-rows.ts';
import type { AppDeps } from '../../deps.ts';
import { plan } from '../../sql/index.ts';
import type { Value } from '../../values.ts';
import { observeQuery } from '../../observability/query-log.ts';
import type { RequestScope } from '../../observability/request-context.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { assertLeastPrivilege } from '../connections/least-privilege.ts';
import type { RowOptions } from './options.ts';
import { type StatementAccess, checkStatement, sqlDriver } from './statement.ts';
import { BYTE_BOUNDED_BATCH_SIZE, type WindowedPage, capRows, readPage } from './window.ts';

export interface RunInput {
  sql: string;
  params: Record<string, unknown>;
  connection: string;
  options: RowOptions;
  /** What the caller's grants allow the statement (checked again right before it runs). */
  access: StatementAccess;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The request the run is for, named in its log lines. */
  scope: RequestScope;
  /** The consumer reads the values (an incremental export tracks its column): never the database's own lines. */
  valuesOnly?: boolean;
  /**
   * The consumer waits for the whole result anyway (an export run): the
   * database may write a parquet file whole before the run opens (ADR 0021),
   * at `path` (a new file the caller owns) or in a temporary file.
   */
  parquetFile?: { path?: string };
}

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
  | { kind: 'file'; path: string; chunks: AsyncIterable<Uint8Array> };

export interface StreamRun extends RunBase {
  body: StreamBody;
  /** Rows passed to the client so far (all of them once the body is read to its end). */
  rows(): number;
  /** Closes the cursor of a body never read (reading it, or stopping it, closes it otherwise). */
  abandon(): Promise<void>;
  /** Closes the cursor of a `file` body taken from its path rather than read, counting the run as done. */
  complete(): Promise<void>;
}

/** Formats a driver may write itself on `stream=true` (SLUICE_STREAM_PUSHDOWN). */
const LINE_FORMATS: ReadonlySet<string> = new Set<LineFormat>(['csv', 'tsv', 'ndjson']);

const BATCH_SIZE = 2_000;

/** Runs a statement and returns one page of its rows (paged formats). */
export async function runPage(deps: AppDeps, input: RunInput): Promise<PageRun> {
  const started = await start(deps, input, async (driver, request) => ({ kind: 'rows' as const, cursor: await driver.run(request) }));
  let ok = false;
  let rows = 0;
  try {
    const page = await readPage(started.opened.cursor.batches, started.window);
    ok = true;
    rows = page.rows.length;
    return { ...started.base, ...page };
  } finally {
    await started.opened.cursor.close();
    deps.usage.record(started.base.connection, { ok, rows, durationMs: performance.now() - started.t0 });
    started.observed.end({ ok, rows });
  }
}

/**
 * Runs a statement for streaming: the batches come straight from the database
 * cursor, capped at SLUICE_STREAM_MAX_ROWS or the key's lower max_rows. The
 * cursor is closed and the run counted when the consumer finishes, fails or
 * stops early.
 */
export async function runStream(deps: AppDeps, input: RunInput): Promise<StreamRun> {
  const format = input.options.format;
  const started = await start(deps, input, async (driver, request): Promise<Opened> => {
    const pushed = deps.env.SLUICE_STREAM_PUSHDOWN && !input.valuesOnly ? await startPushdown(driver, request, format, input) : null;
    return pushed ?? { kind: 'rows', cursor: await driver.run(request) };
  });
  const { opened } = started;
  const max = input.options.streamMaxRows;
  let cap: { rows(): number; capped(): boolean };
  let begun = false;
  async function* counted<T>(items: AsyncIterable<T>) {
    begun = true;
    let ok = false;
    try {
      yield* items;
      ok = true;
    } finally {
      await opened.cursor.close();
      deps.usage.record(started.base.connection, { ok, rows: cap.rows(), durationMs: performance.now() - started.t0 });
      started.observed.end({ ok, rows: cap.rows(), capped: cap.capped() });
      if (cap.capped()) {
        deps.logger.warn({ ...started.observed.scope, connection: started.base.connection, rows: cap.rows() }, `stream stopped at ${input.options.streamCap ?? 'SLUICE_STREAM_MAX_ROWS'}`);
      }
    }
  }
  let body: StreamBody;
  if (opened.kind === 'file') {
    // The file holds every row: a capped stream never takes this path (startPushdown).
    const rows = opened.cursor.rows;
    cap = { rows: () => rows, capped: () => false };
    body = { kind: 'file', path: opened.cursor.path, chunks: counted(opened.cursor.batches) };
  } else if (opened.kind === 'lines') {
    const lines = capLines(opened.cursor.batches, opened.format, max);
    cap = lines;
    body = { kind: 'lines', format: opened.format, chunks: counted(lines.chunks) };
  } else {
    const rows = capRows(opened.cursor.batches, max);
    cap = rows;
    body = { kind: 'rows', batches: counted(rows.batches) };
  }
  const closeUnread = async (ok: boolean) => {
    if (begun) return;
    begun = true;
    await opened.cursor.close();
    const rows = ok ? cap.rows() : 0;
    deps.usage.record(started.base.connection, { ok, rows, durationMs: performance.now() - started.t0 });
    started.observed.end({ ok, rows });
  };
  const complete = async () => {
    if (opened.kind !== 'file') throw new Error('only a file body is taken from its path');
    await closeUnread(true);
  };
  return { ...started.base, body, rows: () => cap.rows(), abandon: () => closeUnread(false), complete };
}

/** A statement started: rows as values, the lines the database writes itself, or the parquet file it wrote. */
type Opened =
  | { kind: 'rows'; cursor: RowCursor }
  | { kind: 'lines'; format: LineFormat; cursor: LineStream }
  | { kind: 'file'; cursor: ParquetStream };

/**
 * The driver's push-down of the format (`Driver.streamLines`,
 * `Driver.streamParquet`), when it has one and can write every column
 * exactly. A parquet file is written whole before the run opens, so only
 * for a consumer that asked for that (`parquetFile`: an export), and not
 * with a row cap (which must know whether rows were left over).
 */
async function startPushdown(driver: Driver, request: RunRequest, format: string, input: RunInput): Promise<Opened | null> {
  if (format === 'parquet') {
    if (!driver.streamParquet || !input.parquetFile || input.options.streamMaxRows !== undefined) return null;
    const cursor = await driver.streamParquet(request, { rowGroupRows, path: input.parquetFile.path });
    return cursor && { kind: 'file', cursor };
  }
  if (!driver.streamLines || !LINE_FORMATS.has(format)) return null;
  const cursor = await driver.streamLines(request, format as LineFormat);
  return cursor && { kind: 'lines', format: format as LineFormat, cursor };
}

/** The checks, the plan and the query log of a run, then `open` starts it on the driver. */
async function start<O extends Opened>(deps: AppDeps, input: RunInput, open: (driver: Driver, request: RunRequest) => Promise<O>) {
  const { name, row, settings } = await connectionForRun(deps, input.connection);
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  await assertLeastPrivilege(deps, row, driver, input.access.serverKey === true);
  const info = checkStatement(deps.env, input.sql, driver.engine ?? driver.dialect, input.options.stream, input.access);
  const planned = plan(input.sql, driver.dialect, input.params, input.options.paging);
  const observed = observeQuery(deps, input.scope, { connection: name, dialect: driver.dialect, sql: input.sql, paging: input.options.paging, timeoutMs: input.options.timeoutMs });
  const t0 = performance.now();
  try {
    const request: RunRequest = {
      text: planned.text,
      values: planned.values,
      readOnly: info.isRead,
      timeoutMs: input.options.timeoutMs,
      signal: input.signal,
      batchSize: input.options.paging?.maxBytes === undefined ? BATCH_SIZE : BYTE_BOUNDED_BATCH_SIZE,
    };
    const opened = await open(driver, request);
    return {
      base: { connection: name, dialect: driver.dialect, columns: opened.cursor.columns },
      opened,
      t0,
      observed,
      window: { skip: planned.skip, take: planned.take ?? 0, probe: planned.probe, countBeyond: input.options.paging?.countBeyond, maxBytes: input.options.paging?.maxBytes },
    };
  } catch (err) {
    deps.usage.record(name, { ok: false, rows: 0, durationMs: performance.now() - t0 });
    observed.end({ ok: false, rows: 0 });
    throw err;
  }
}
