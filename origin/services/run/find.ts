import { createHash } from 'node:crypto';
import { type ColumnMeta, type DocumentCursor, type DocumentDriver, type DocumentFields, type DocumentQuery, runsSql } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { capLines } from '../../formats/line-rows.ts';
import { collectIfHeapGrew } from '../../native-memory.ts';
import type { RequestScope } from '../../observability/request-context.ts';
import type { Value } from '../../values.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { FieldSet, documentJson, rowMaker } from '../documents/columns.ts';
import { projectedFields } from '../documents/query.ts';
import { openSpool } from '../documents/spool.ts';
import { type PageRun, type ShapedBody, type StreamRun, begin, pageRun, streamRun } from './engine.ts';
import type { RowOptions } from './options.ts';
import { BYTE_BOUNDED_BATCH_SIZE, type WindowedPage, capRows, readPage } from './window.ts';
import type { QueryPlace } from '../../observability/tracing/query-span.ts';

/**
 * The document engine (`POST /execute_mongo`, saved queries of
 * `query_type: mongo`): the same pages, streams, caps, usage, metrics and
 * query log as SQL runs (engine.ts), over a find. Pages carry the union of
 * their documents' fields as columns. Streams follow the spec's rules for
 * document databases: NDJSON writes whole documents; CSV and TSV take their
 * columns from the projection or the first 1,000 documents and drop (and
 * count) fields first seen later; parquet makes every top-level field a
 * column, so its documents are spooled to disk until all fields are known.
 */

export interface DocumentRunInput {
  connection: string;
  /** Parameters already bound as values (services/documents/bind.ts). */
  query: DocumentQuery;
  options: RowOptions;
  signal: AbortSignal;
  scope: RequestScope;
  /** The saved query and version run, if one: named on the query span. */
  saved?: QueryPlace['saved'];
}

/** Documents CSV and TSV streams read before fixing their columns (the spec's number). */
export const COLUMN_SAMPLE = 1_000;

const BATCH_SIZE = 2_000;

/**
 * A stream's documents die young, but the driver's reply buffers and the
 * decoded batches they become outlive a scavenge while the batch is written,
 * so V8 lets the old generation grow by ~150 MB before a full collection
 * (mongo-stream bench: 282 MiB peak without this). One full collection per
 * this much heap growth keeps a stream's memory flat.
 */
const HEAP_GROWTH_BEFORE_COLLECTING = 32 * 2 ** 20;

/**
 * Finds one page within the query's own `skip`/`limit` window, reading one
 * document more to learn whether another page exists (or, for an MCP tool's
 * note, counting up to `countBeyond` documents after the page).
 */
export async function runDocumentPage(deps: AppDeps, input: DocumentRunInput): Promise<PageRun> {
  const paging = input.options.paging!;
  const before = (paging.page - 1) * paging.pageSize;
  const remaining = input.query.limit > 0 ? input.query.limit - before : Number.POSITIVE_INFINITY;
  const take = Math.max(0, Math.min(paging.pageSize, remaining));
  const probe = remaining > take;
  const past = probe ? 1 + (paging.countBeyond ?? 0) : 0;
  const query = { ...input.query, skip: input.query.skip + before, limit: Math.min(remaining, take + past) };
  const started = await start(deps, input, query, take + past === 0);
  const cursor = started.cursor;
  const empty: WindowedPage<DocumentFields> = { rows: [], hasMore: false };
  const page = await pageRun(
    started.begun,
    async () => (cursor ? readPage(cursor.batches, { skip: 0, take, probe, countBeyond: paging.countBeyond, maxBytes: paging.maxBytes }) : empty),
    async () => cursor?.close(),
  );
  const fields = new FieldSet(projectedFields(input.query.projection));
  for (const document of page.rows) fields.add(document);
  const columns = fields.columns();
  return { connection: started.begun.connection, dialect: 'mongodb', columns, ...page, rows: page.rows.map(rowMaker(columns)) };
}

/** Runs a find for streaming, in the format's shape; the cursor is closed and the run counted when the consumer finishes, fails or stops. */
export async function runDocumentStream(deps: AppDeps, input: DocumentRunInput): Promise<StreamRun> {
  const started = await start(deps, input, input.query, false);
  const cursor = started.cursor!;
  const max = input.options.streamMaxRows;
  const format = input.options.format;
  let dropped = new Set<string>();
  let columns: ColumnMeta[] = [];
  let shaped: ShapedBody;
  if (format === 'ndjson') {
    shaped = { kind: 'lines', format: 'ndjson', ...capLines(ndjsonChunks(cursor), 'ndjson', max) };
  } else if (format === 'parquet') {
    const spooled = await spoolAll(cursor, max);
    columns = spooled.columns;
    shaped = { kind: 'rows', ...capRows(spooled.batches, max) };
  } else {
    const fixed = await fixColumns(cursor, input.query.projection);
    columns = fixed.columns;
    dropped = fixed.dropped;
    shaped = { kind: 'rows', ...capRows(fixed.batches, max) };
  }
  return { ...streamRun(deps, started.begun, input.options, shaped, columns, () => cursor.close()), fieldsDropped: () => dropped.size };
}

/** Whole documents as NDJSON lines, in ~64 KiB chunks. */
async function* ndjsonChunks(cursor: DocumentCursor): AsyncIterable<Uint8Array> {
  for await (const batch of cursor.batches) {
    collectIfHeapGrew(HEAP_GROWTH_BEFORE_COLLECTING);
    let text = '';
    for (const document of batch) text += `${documentJson(document)}\n`;
    yield Buffer.from(text, 'utf8');
  }
}

/**
 * CSV and TSV columns: the projection's fields, else those of the first
 * COLUMN_SAMPLE documents (read ahead and then passed on). Fields first seen
 * later are left out of the rows and noted in `dropped`.
 */
async function fixColumns(cursor: DocumentCursor, projection: Record<string, unknown> | null) {
  const named = projectedFields(projection);
  const fields = new FieldSet(named);
  const iterator = cursor.batches[Symbol.asyncIterator]();
  const ahead: DocumentFields[][] = [];
  if (named.length === 0) {
    let read = 0;
    while (read < COLUMN_SAMPLE) {
      const next = await iterator.next();
      if (next.done) break;
      ahead.push(next.value);
      for (const document of next.value) if (read++ < COLUMN_SAMPLE) fields.add(document);
    }
  }
  const columns = fields.columns();
  const toRow = rowMaker(columns);
  const dropped = new Set<string>();
  const rowsOf = (batch: DocumentFields[]) => {
    collectIfHeapGrew(HEAP_GROWTH_BEFORE_COLLECTING);
    return batch.map((document) => {
      for (const name of fields.observe(document)) dropped.add(name);
      return toRow(document);
    });
  };
  async function* batches(): AsyncIterable<Value[][]> {
    for (const batch of ahead.splice(0)) yield rowsOf(batch);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield rowsOf(next.value);
  }
  return { columns, dropped, batches: batches() };
}

/** Every document to a spool file, learning every field, then the rows read back from it (at most `max` documents are kept). */
async function spoolAll(cursor: DocumentCursor, max: number | undefined) {
  const spool = await openSpool();
  const fields = new FieldSet();
  let kept = 0;
  try {
    for await (const batch of cursor.batches) {
      const part = max !== undefined && kept + batch.length > max ? batch.slice(0, max + 1 - kept) : batch;
      for (const document of part) fields.add(document);
      await spool.write(part);
      kept += part.length;
      if (max !== undefined && kept > max) break;
    }
  } catch (error) {
    await spool.discard();
    throw error;
  }
  const columns = fields.columns();
  const toRow = rowMaker(columns);
  async function* batches(): AsyncIterable<Value[][]> {
    for await (const batch of spool.read(BATCH_SIZE)) yield batch.map(toRow);
  }
  return { columns, batches: batches() };
}

/** The connection (a document database's), the query log line and the find, started. */
async function start(deps: AppDeps, input: DocumentRunInput, query: DocumentQuery, empty: boolean) {
  const { name, settings } = await connectionForRun(deps, input.connection);
  const driver = deps.drivers.get(name, settings);
  if (runsSql(driver)) {
    throw badRequest(`Connection "${name}" is a ${driver.type} connection: document queries run on mongodb connections (SQL goes to POST /execute_sql)`);
  }
  // The query log hashes what it is given; a bound 64-bit integer is a bigint, which JSON cannot hold.
  const text = createHash('sha256').update(JSON.stringify(query, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))).digest('hex');
  const begun = begin(deps, input.scope, { connection: name, dialect: 'mongodb', text, options: input.options, place: { settings, saved: input.saved } });
  if (empty) return { begun, cursor: null };
  try {
    const cursor = await (driver as DocumentDriver).find({ query, timeoutMs: input.options.timeoutMs, signal: input.signal, batchSize: input.options.paging?.maxBytes === undefined ? BATCH_SIZE : BYTE_BOUNDED_BATCH_SIZE });
    return { begun, cursor };
  } catch (err) {
    begun.end(false, 0, false, err);
    throw err;
  }
}
