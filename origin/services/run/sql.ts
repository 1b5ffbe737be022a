import type { Driver, LineFormat, LineStream, ParquetStream, RowCursor, RunRequest } from '../../drivers/types.ts';
import { rowGroupRows } from '../../formats/parquet.ts';
import { capLines } from '../../formats/line-rows.ts';
import type { AppDeps } from '../../deps.ts';
import { plan } from '../../sql/index.ts';
import { type RequestScope, spanOf } from '../../observability/request-context.ts';
import type { QueryPlace } from '../../observability/tracing/query-span.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { askPrivilegesOnFirstUse } from '../connections/least-privilege.ts';
import { type PageRun, type ShapedBody, type StreamRun, begin, pageRun, streamRun } from './engine.ts';
import type { RowOptions } from './options.ts';
import { sqlDriver } from './statement.ts';
import { BYTE_BOUNDED_BATCH_SIZE, capRows, readPage } from './window.ts';

/**
 * The SQL engine: a statement that passed the guard and the caller's grants
 * (prepare-sql.ts), planned for its row window and run on the connection's
 * driver, its rows as a page or a stream (engine.ts), or the lines or parquet
 * file the database writes itself.
 */
export interface RunInput {
  sql: string;
  params: Record<string, unknown>;
  connection: string;
  options: RowOptions;
  /** The guard read the statement as one plain read: the driver runs it in a read-only transaction or session. */
  isRead: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The request the run is for, named in its log lines. */
  scope: RequestScope;
  /** The saved query and version run, if one: named on the query span. */
  saved?: QueryPlace['saved'];
  /** The consumer reads the values (an incremental export tracks its column): never the database's own lines. */
  valuesOnly?: boolean;
  /**
   * The consumer waits for the whole result anyway (an export run): the
   * database may write a parquet file whole before the run opens (ADR 0021),
   * at `path` (a new file the caller owns) or in a temporary file.
   */
  parquetFile?: { path?: string; chunkRows?: number };
}

/** Formats a driver may write itself on `stream=true` (SLUICE_STREAM_PUSHDOWN). */
const LINE_FORMATS: ReadonlySet<string> = new Set<LineFormat>(['csv', 'tsv', 'ndjson']);

const BATCH_SIZE = 2_000;

/** Runs a statement and returns one page of its rows (paged formats). */
export async function runPage(deps: AppDeps, input: RunInput): Promise<PageRun> {
  const started = await start(deps, input, async (driver, request) => ({ kind: 'rows' as const, cursor: await driver.run(request) }));
  const { cursor } = started.opened;
  return pageRun(started.begun, async () => ({ ...started.base, ...(await readPage(cursor.batches, started.window)) }), () => cursor.close());
}

/**
 * Runs a statement for streaming: the batches come straight from the database
 * cursor, capped at SLUICE_STREAM_MAX_ROWS or the key's lower max_rows. The
 * cursor is closed and the run counted when the consumer finishes, fails or
 * stops early (engine.ts).
 */
export async function runStream(deps: AppDeps, input: RunInput): Promise<StreamRun> {
  const format = input.options.format;
  const started = await start(deps, input, async (driver, request): Promise<Opened> => {
    const pushed = deps.env.SLUICE_STREAM_PUSHDOWN && !input.valuesOnly ? await startPushdown(driver, request, format, input) : null;
    return pushed ?? { kind: 'rows', cursor: await driver.run(request) };
  });
  const { opened } = started;
  const max = input.options.streamMaxRows;
  let shaped: ShapedBody;
  if (opened.kind === 'file') {
    // The file holds every row: a capped stream never takes this path (startPushdown).
    const rows = opened.cursor.rows;
    shaped = { kind: 'file', path: opened.cursor.path, files: opened.cursor.files, chunks: opened.cursor.batches, rows: () => rows, capped: () => false };
  } else if (opened.kind === 'lines') {
    shaped = { kind: 'lines', format: opened.format, ...capLines(opened.cursor.batches, opened.format, max) };
  } else {
    shaped = { kind: 'rows', ...capRows(opened.cursor.batches, max) };
  }
  return streamRun(deps, started.begun, input.options, shaped, started.base.columns, () => opened.cursor.close());
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
    const cursor = await driver.streamParquet(request, { rowGroupRows, path: input.parquetFile.path, chunkRows: input.parquetFile.chunkRows });
    return cursor && { kind: 'file', cursor };
  }
  if (!driver.streamLines || !LINE_FORMATS.has(format)) return null;
  const cursor = await driver.streamLines(request, format as LineFormat);
  return cursor && { kind: 'lines', format: format as LineFormat, cursor };
}

/** The plan and the query log of a run, then `open` starts it on the driver. */
async function start<O extends Opened>(deps: AppDeps, input: RunInput, open: (driver: Driver, request: RunRequest) => Promise<O>) {
  const { name, row, settings } = await connectionForRun(deps, input.connection);
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  askPrivilegesOnFirstUse(deps, row, driver);
  const planned = plan(input.sql, driver.dialect, input.params, input.options.paging);
  const begun = begin(deps, input.scope, { connection: name, dialect: driver.dialect, text: input.sql, options: input.options, place: { settings, saved: input.saved } });
  try {
    const request: RunRequest = {
      text: planned.text,
      values: planned.values,
      readOnly: input.isRead,
      timeoutMs: input.options.timeoutMs,
      signal: input.signal,
      span: spanOf(input.scope),
      batchSize: input.options.paging?.maxBytes === undefined ? BATCH_SIZE : BYTE_BOUNDED_BATCH_SIZE,
      ...(planned.rowsAtMost === null ? {} : { rowsAtMost: planned.rowsAtMost }),
      ...(planned.inlined === undefined ? {} : { inlined: planned.inlined }),
    };
    const opened = await open(driver, request);
    return {
      base: { connection: name, dialect: driver.dialect, columns: opened.cursor.columns },
      opened,
      begun,
      window: { skip: planned.skip, take: planned.take ?? 0, probe: planned.probe, countBeyond: input.options.paging?.countBeyond, maxBytes: input.options.paging?.maxBytes },
    };
  } catch (err) {
    begun.end(false, 0, false, err);
    throw err;
  }
}
