import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { ownerOf } from '../../access/owner.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { NO_REQUEST, spanOf, withSpan, type RequestScope } from '../../observability/request-context.ts';
import { type ResultChunk, type ResultRow, results } from '../../store/schema/index.ts';
import type { ObjectStore } from '../../object-storage/types.ts';
import type { RowOptions } from '../run/options.ts';
import type { RunLabel } from '../run/record.ts';
import type { RunAnswer, RunSource, StreamAnswer } from '../run/request.ts';
import { run } from '../run/run.ts';
import { ResultTooLarge, writeChunks } from './chunks.ts';
import { resultFolder } from './folder.ts';
import { resultRunner } from './runner.ts';
import { type ResultPlace, newResultPlace, openResultStore, removeResultChunks } from './storage.ts';
import { type TraceSpan, errorCode } from '../../observability/tracing/span.ts';

/** The formats a result is written in: those a stream takes. */
export const RESULT_FORMATS = ['csv', 'tsv', 'ndjson', 'parquet'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

export interface ResultRequest {
  caller: Caller;
  source: RunSource;
  /** A stream's options (`stream: true`, a streamable format): checked as the request's own. */
  options: RowOptions;
  chunkRows: number;
  scope: RequestScope;
  /** Where this origin was reached (`http://host:port`): the chunk links of the result point there, whichever origin answers for it. */
  linkBase: string;
}

/** Rows per chunk when a request does not say. */
export const DEFAULT_CHUNK_ROWS = 1_000_000;

/**
 * Parquet chunks of at least this many rows are written by DuckDB itself
 * where it can (ADR 0030: each then ends where a row group does); smaller
 * ones by the JS writer, each exactly `chunk_rows`.
 */
export const PUSHED_CHUNK_ROWS = 100_000;

/** Why a result stopped, as its `error` says it. */
const CANCELLED = new SluiceError('invalid_request', 'The result was cancelled');
export const ORIGIN_STOPPED = new SluiceError('internal_error', 'origin stopped while the result was written');

const newId = () => `res_${randomBytes(16).toString('base64url')}`;

/**
 * Starts a result: the run is the run path's, as `stream=true` of the same
 * request would make it (reachability, the guard, grants, admission, the
 * time limit; history with `transport: result`), its rows written as chunks
 * of `chunkRows` into this origin's result folder. A request the run refuses
 * before its statement starts is answered as `/execute_sql` answers it, with
 * nothing kept; once checked, the result is stored (`running`) and the
 * statement starts, so a failure from then on is the result's. When
 * SLUICE_RESULTS_MAX_RUNNING results already run here, it waits `queued`
 * and a refusal then becomes its failure. Returns its id once it is stored.
 */
export async function startResult(deps: AppDeps, request: ResultRequest): Promise<string> {
  const { options } = request;
  const format = options.format as ResultFormat;
  const runner = resultRunner(deps);
  const id = newId();
  const controller = new AbortController();
  const place = await newResultPlace(deps);
  const fields = { id, owner: ownerOf(request.caller), keyName: request.caller.key ? request.caller.name : null, format, chunkRows: request.chunkRows, origin: runner.holder, linkBase: request.linkBase, ...place };
  // Written after the request that asked for it has been answered: its span still goes under that request's.
  const span = spanOf(request.scope).child('sluice.result.run', { 'sluice.result': id, 'sluice.format': format, 'sluice.destination': place.destination ?? 'local' });
  const writing: Writing = { id, place, format, chunkRows: request.chunkRows, parts: null, span };
  const lease = sql`now() + make_interval(secs => ${deps.env.SLUICE_RESULT_LEASE})`;
  const pushable = format === 'parquet' && request.chunkRows >= PUSHED_CHUNK_ROWS && deps.env.SLUICE_STREAM_PUSHDOWN;
  /**
   * The run, whose `ready` (checked, about to start its statement) stores
   * the result as running, and offers the database a folder for its own
   * parquet files.
   */
  const begin = (stored: (label: RunLabel) => Promise<void>) =>
    run(deps, {
      caller: request.caller,
      source: request.source,
      options,
      transport: 'result',
      signal: controller.signal,
      scope: withSpan(request.scope, span),
      details: { result: id },
      consumer: {
        valuesOnly: !pushable,
        async ready(label) {
          await stored(label);
          if (!pushable) return;
          writing.parts = await partsFolder(deps, writing);
          return { parquetPath: writing.parts, parquetChunkRows: request.chunkRows };
        },
      },
    });
  const release = runner.tryPlace();
  if (release) {
    let stored!: () => void;
    const isStored = new Promise<void>((resolve) => (stored = resolve));
    const answered = begin(async (label) => {
      await deps.store.db.insert(results).values({ ...fields, state: 'running', query: label.query, version: label.version, connection: label.connection ?? '-', leaseExpires: lease });
      stored();
    });
    // Until the result is stored, a failure is the request's refusal.
    const refused = await Promise.race([isStored.then(() => null), answered.then(() => null, (err: unknown) => ({ err }))]);
    if (refused) {
      span.fail(errorCode(refused.err));
      span.end();
      release();
      throw refused.err;
    }
    runner.track(id, controller, async () => {
      try {
        await write(deps, writing, streamOf(await answered), controller.signal);
      } catch (err) {
        await finish(deps, writing, { error: controller.signal.aborted ? controller.signal.reason : err });
      } finally {
        await removeParts(writing);
        release();
      }
    });
    return id;
  }
  const source = request.source;
  await deps.store.db.insert(results).values({
    ...fields,
    state: 'queued',
    query: source.kind === 'saved' ? source.name : null,
    version: source.kind === 'saved' ? (source.version ?? null) : null,
    connection: source.connection ?? '-',
    leaseExpires: lease,
  });
  runner.track(id, controller, async () => {
    let placed: (() => void) | undefined;
    try {
      placed = await runner.place(controller.signal);
      const answered = await begin(async (label) => {
        await deps.store.db.update(results).set({ state: 'running', query: label.query, version: label.version, connection: label.connection ?? '-' }).where(eq(results.id, id));
      });
      await write(deps, writing, streamOf(answered), controller.signal);
    } catch (err) {
      await finish(deps, writing, { error: controller.signal.aborted ? controller.signal.reason : err });
    } finally {
      await removeParts(writing);
      placed?.();
    }
  });
  return id;
}

const streamOf = (answer: RunAnswer): StreamAnswer => {
  if (answer.kind !== 'stream') throw new Error('a result streams');
  return answer;
};

/** A result being written: where, and how. */
interface Writing {
  id: string;
  place: ResultPlace;
  format: ResultFormat;
  chunkRows: number;
  /** Where the database writes its own parquet files, once it was offered a folder. */
  parts: string | null;
  /** `sluice.result.run`, ended by `finish`. */
  span: TraceSpan;
}

/**
 * A folder for the database's parquet files before they become chunks: in
 * the result's own folder for a local one (so each is renamed into place),
 * else in a private temporary folder (mode 700) they are uploaded from.
 */
async function partsFolder(deps: AppDeps, { id, place }: Writing): Promise<string> {
  if (place.destination !== null) return join(await mkdtemp(join(tmpdir(), 'sluice-result-')), 'parts');
  const folder = join(resultFolder(deps.env), id);
  await mkdir(folder, { recursive: true });
  return join(folder, '.parts');
}

async function removeParts({ parts, place }: Writing): Promise<void> {
  if (parts !== null) await rm(place.destination === null ? parts : dirname(parts), { recursive: true, force: true });
}

/** Writes the run's chunks, recording each as it lands, then the outcome. */
async function write(deps: AppDeps, writing: Writing, answer: StreamAnswer, signal: AbortSignal): Promise<void> {
  const { id, format, chunkRows } = writing;
  let store: ObjectStore | undefined;
  try {
    store = await openResultStore(deps, writing.place);
    let bytes = 0;
    await writeChunks(answer.run, {
      id,
      format,
      chunkRows,
      store,
      signal,
      span: writing.span,
      room: deps.env.SLUICE_RESULT_MAX_BYTES - (await bytesHeld(deps, resultRunner(deps).holder, id)),
      written: (chunk) => {
        bytes += chunk.bytes;
        return recordChunk(deps, id, chunk);
      },
    });
    writing.span.set({ 'sluice.rows': answer.run.rows(), 'sluice.bytes': bytes });
    await finish(deps, writing, { truncated: answer.run.capped() });
  } catch (err) {
    await answer.run.abandon();
    await finish(deps, writing, { error: signal.aborted ? signal.reason : err });
  } finally {
    store?.close();
  }
}

/** Bytes of chunks this origin keeps for other results (SLUICE_RESULT_MAX_BYTES counts them all). */
async function bytesHeld(deps: AppDeps, holder: string, except: string): Promise<number> {
  const [row] = await deps.store.db
    .select({ bytes: sql<string>`coalesce(sum(${results.bytes}), 0)` })
    .from(results)
    .where(and(eq(results.origin, holder), inArray(results.state, ['running', 'succeeded']), sql`${results.id} <> ${except}`));
  return Number(row?.bytes ?? 0);
}

/** Records a chunk in place; a result deleted meanwhile (from another origin too) stops here. */
async function recordChunk(deps: AppDeps, id: string, chunk: ResultChunk): Promise<void> {
  const updated = await deps.store.db
    .update(results)
    .set({
      chunks: sql`${results.chunks} || ${JSON.stringify([chunk])}::jsonb`,
      rows: sql`${results.rows} + ${chunk.rows}`,
      bytes: sql`${results.bytes} + ${chunk.bytes}`,
    })
    .where(eq(results.id, id))
    .returning({ id: results.id });
  if (updated.length === 0) throw CANCELLED;
}

/**
 * A result's end: succeeded (kept SLUICE_RESULT_TTL seconds), or failed or
 * cancelled with its chunks removed. A result deleted meanwhile stays gone.
 */
async function finish(deps: AppDeps, { id, place, span }: Writing, outcome: { truncated?: boolean; error?: unknown }): Promise<void> {
  if (outcome.error !== undefined) span.fail(errorCode(outcome.error));
  span.end();
  const ttl = sql`now() + make_interval(secs => ${deps.env.SLUICE_RESULT_TTL})`;
  if (outcome.error === undefined) {
    await deps.store.db.update(results).set({ state: 'succeeded', truncated: outcome.truncated ?? false, finishedAt: sql`now()`, expiresAt: ttl, leaseExpires: null }).where(eq(results.id, id));
    return;
  }
  await removeResultChunks(deps, { id, ...place });
  const cancelled = outcome.error === CANCELLED;
  // What the result's `error` cannot say (it never carries an unexpected error's text) goes to the log.
  if (!(outcome.error instanceof SluiceError) && !(outcome.error instanceof ResultTooLarge)) {
    const err = outcome.error as Error;
    deps.logger.error({ ...NO_REQUEST, result: id, err: { name: err?.name, stack: err?.stack } }, 'a stored result failed');
  }
  await deps.store.db
    .update(results)
    .set({ state: cancelled ? 'cancelled' : 'failed', error: errorOf(outcome.error), chunks: [], rows: 0, bytes: 0, finishedAt: sql`now()`, expiresAt: ttl, leaseExpires: null })
    .where(eq(results.id, id));
}

/** A failure as the query endpoints answer it: their message and detail, never an unexpected error's text (it may carry a secret). */
function errorOf(err: unknown): ResultRow['error'] {
  if (err instanceof ResultTooLarge) return { error: 'The result passed SLUICE_RESULT_MAX_BYTES, the bytes of results this origin keeps; its chunks were removed' };
  if (err instanceof SluiceError) return { error: err.message, ...(err.extras.detail !== undefined ? { detail: err.extras.detail } : {}) };
  return { error: 'Internal server error' };
}

/** Cancels a result this origin writes: its statement stops, its chunks go. */
export const cancelResult = (deps: AppDeps, id: string): Promise<boolean> => resultRunner(deps).cancel(id, CANCELLED);
