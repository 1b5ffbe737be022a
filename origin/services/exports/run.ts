import { hostname } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { openObjectStore } from '../../object-storage/index.ts';
import type { ObjectStore, ReservedFile, WrittenObject } from '../../object-storage/types.ts';
import { NO_REQUEST, withSpan } from '../../observability/request-context.ts';
import { NO_SPAN, type TraceSpan, spanned } from '../../observability/tracing/span.ts';
import { type ExportRunRow, exportRuns, exports } from '../../store/schema/index.ts';
import type { Value } from '../../values.ts';
import { destinationForRun } from '../destinations/lookup.ts';
import { failureMessage } from '../history/outcome.ts';
import type { StreamRun } from '../run/engine.ts';
import type { StreamAnswer } from '../run/request.ts';
import { run as runRows } from '../run/run.ts';
import { streamBytes } from '../run/stream-bytes.ts';
import { boundParams, exportRowOptions } from './checks.ts';
import type { ExportFields } from './fields.ts';
import { type Lease, exportRunning, releaseLease, renewLease, takeLease } from './lease.ts';
import { findExport } from './lookup.ts';
import { objectKey } from './path.ts';
import { type ExportRunView, exportRunView, rowFields } from './view.ts';
import { type Watermark, later, readWatermark, showWatermark, storeWatermark, watermarkOf } from './watermark.ts';

/** Thrown through the upload when a `skip_empty` run found no rows: the object is dropped, not written. */
class NothingToWrite extends Error {}

/**
 * Runs an export now (`POST /api/v1/exports/{name}/runs`): under its lease,
 * the published version of its query streams from the database cursor
 * through the format's writer straight into the destination, and only once
 * the object is complete does the run count: the watermark moves to the
 * largest value of the incremental column delivered, in the transaction that
 * checks the lease is still this run's. A failed, timed-out or killed run
 * leaves the watermark where it was, so the next run sends those rows again.
 */
export async function runExport(deps: AppDeps, actor: Caller, name: string, { workspace, parent = NO_SPAN }: { workspace?: string; parent?: TraceSpan } = {}): Promise<ExportRunView> {
  const row = await findExport(deps.store.db, name, { workspace });
  const fields = rowFields(row);
  const span = parent.child('sluice.export.run', { 'sluice.export': name, 'sluice.destination': fields.destination, 'sluice.format': fields.format });
  return spanned(span, async () => {
    const view = await runUnderLease(deps, actor, { id: row.id, name, fields }, span);
    span.set({ 'sluice.object': view.object ?? undefined, 'sluice.rows': view.rows, 'sluice.bytes': view.bytes ?? undefined });
    return view;
  });
}

async function runUnderLease(deps: AppDeps, actor: Caller, { id, name, fields }: { id: number; name: string; fields: ExportFields }, span: TraceSpan): Promise<ExportRunView> {
  const { lease, run, from } = await startRun(deps, actor, id, name, fields);
  const abort = new AbortController();
  const stopRenewing = keepLease(deps, lease, abort);
  const timeoutMs = (fields.timeout ?? deps.env.SLUICE_QUERY_TIMEOUT) * 1000;
  const timer = timeoutMs > 0 ? setTimeout(() => abort.abort(new SluiceError('timeout', `The export ran past its ${timeoutMs / 1000} s timeout and was cancelled`, { timeout: timeoutMs / 1000 })), timeoutMs) : null;
  const held: { answer?: StreamAnswer } = {};
  const details = (object: string | null, watermark: ExportRunRow['watermarkTo']) => ({
    export: name,
    destination: fields.destination,
    object,
    watermark: showWatermark(readWatermark(watermark)),
  });
  let outcome: Delivered;
  try {
    outcome = await deliver(deps, actor, fields, { name, run, from, signal: abort.signal, timeoutMs, details: details(null, null), span }, held);
  } catch (err) {
    const reason = abort.signal.aborted && abort.signal.reason instanceof SluiceError ? abort.signal.reason : err;
    await finishRun(deps, lease, run, { error: failureMessage(reason) }, from);
    held.answer?.settle({ error: reason, details: details(null, null) });
    throw reason;
  } finally {
    if (timer) clearTimeout(timer);
    stopRenewing();
  }
  const finished = await finishRun(deps, lease, run, outcome, from);
  const failed = finished.status === 'success' ? undefined : new SluiceError('export_running', finished.error!);
  held.answer?.settle({ error: failed, details: details(finished.object, finished.watermarkTo) });
  if (failed) throw failed;
  return exportRunView(finished, fields.incremental !== null);
}

interface Delivered {
  object: WrittenObject | null;
  rows: number;
  /** The largest incremental value delivered; null when not incremental or no row had one. */
  watermark: Watermark | null;
}

/** Takes the lease and writes the `running` row whose id names the object (`{run}`). */
async function startRun(deps: AppDeps, actor: Caller, exportId: number, name: string, fields: ExportFields) {
  return deps.store.db.transaction(async (tx) => {
    const taken = await takeLease(tx, exportId, `${hostname()}:${process.pid}`, deps.env.SLUICE_EXPORT_LEASE);
    if ('retryAfter' in taken) throw exportRunning(name, taken.retryAfter);
    const [current] = await tx.select({ watermark: exports.watermark }).from(exports).where(eq(exports.id, exportId));
    const from = fields.incremental ? (readWatermark(current?.watermark ?? null) ?? (fields.incremental.start as Watermark | null)) : null;
    const [run] = await tx
      .insert(exportRuns)
      .values({
        export: name,
        status: 'running',
        actor: actor.name,
        destination: fields.destination,
        fence: taken.fence,
        watermarkFrom: fields.incremental && from !== null ? storeWatermark(from) : null,
      })
      .returning();
    return { lease: { exportId, fence: taken.fence } as Lease, run: run!, from };
  });
}

/** Renews the lease every third of its term; a lease taken over aborts the run. Returns the stop. */
function keepLease(deps: AppDeps, lease: Lease, abort: AbortController): () => void {
  const seconds = deps.env.SLUICE_EXPORT_LEASE;
  const timer = setInterval(() => {
    renewLease(deps.store.db, lease, seconds).then(
      (held) => {
        if (!held) abort.abort(new SluiceError('export_running', 'The run lost its lease to another run; its object is not counted'));
      },
      (err) => deps.logger.warn({ ...NO_REQUEST, err: { message: (err as Error).message } }, 'export lease renewal failed; retrying'),
    );
  }, (seconds * 1000) / 3);
  timer.unref();
  return () => clearInterval(timer);
}

interface DeliverInput {
  name: string;
  run: ExportRunRow;
  from: Watermark | null;
  signal: AbortSignal;
  timeoutMs: number;
  /** What the run's history entry names if it fails before its object is written. */
  details: Record<string, unknown>;
  /** The run's span: its statement, serialisation and each part uploaded go under it. */
  span: TraceSpan;
}

/**
 * The query's rows, serialised, into the destination: the object written (or
 * none), its rows and the new watermark. The run is the run path's
 * (services/run/run.ts), as `/q/<query>?stream=true` would make it, by the
 * export's actor; the destination is opened once the run is checked, before
 * its statement starts. `held` gets the run, which the caller settles once
 * the outcome is committed.
 */
async function deliver(deps: AppDeps, actor: Caller, fields: ExportFields, input: DeliverInput, held: { answer?: StreamAnswer }): Promise<Delivered> {
  const bound = boundParams(fields, input.from);
  const key = objectKey(fields.path, fields.format, { name: input.name, run: input.run.id, at: input.run.startedAt, params: bound });
  const opened: { store?: ObjectStore; reserved?: ReservedFile | null } = {};
  try {
    const answer = await runRows(deps, {
      caller: actor,
      source: { kind: 'saved', name: fields.query, supplied: bound, source: 'json', sqlOnly: true },
      options: exportRowOptions(fields, input.timeoutMs),
      transport: 'export',
      signal: input.signal,
      scope: withSpan(NO_REQUEST, input.span),
      details: input.details,
      consumer: {
        valuesOnly: fields.incremental !== null,
        async ready() {
          const store = (opened.store = openObjectStore(await destinationForRun(deps, fields.destination), deps.env));
          // A parquet file the database writes itself goes straight to a folder's temporary file, never copied.
          opened.reserved = fields.format === 'parquet' && fields.incremental === null && store.reserveFile ? await store.reserveFile(key) : null;
          return { parquetPath: opened.reserved?.path };
        },
      },
    });
    if (answer.kind !== 'stream') throw new Error('an export run streams');
    held.answer = answer;
    const stream = answer.run;
    const store = opened.store!;
    const reserved = opened.reserved ?? null;
    try {
      if (reserved && stream.body.kind === 'file' && stream.body.path === reserved.path) {
        await stream.complete();
        if (fields.skip_empty && stream.rows() === 0) return { object: null, rows: 0, watermark: null };
        return { object: await reserved.commit(input.signal), rows: stream.rows(), watermark: null };
      }
      const tracker = fields.incremental ? trackColumn(stream, fields.incremental.column) : null;
      const { serializer, chunks } = await streamBytes(stream, fields.format, input.span);
      const object = await store.put(key, unlessEmpty(chunks, stream, fields.skip_empty), { contentType: serializer.contentType, signal: input.signal, span: input.span });
      return { object, rows: stream.rows(), watermark: tracker?.largest() ?? null };
    } catch (err) {
      if (err instanceof NothingToWrite) return { object: null, rows: 0, watermark: null };
      throw err;
    } finally {
      // A store that failed before taking a byte never read the body: its cursor is closed here.
      await stream.abandon();
    }
  } finally {
    await opened.reserved?.discard();
    opened.store?.close();
  }
}

/** The bytes, ending in `NothingToWrite` instead when the result had no rows and empty results are skipped. */
async function* unlessEmpty(chunks: AsyncIterable<Uint8Array>, stream: StreamRun, skipEmpty: boolean): AsyncIterable<Uint8Array> {
  const held: Uint8Array[] = [];
  for await (const chunk of chunks) {
    // Until the first row is read, chunks (a header) are held back: an empty result writes nothing.
    if (skipEmpty && stream.rows() === 0) {
      held.push(chunk);
      continue;
    }
    if (held.length > 0) yield* held.splice(0);
    yield chunk;
  }
  if (skipEmpty && stream.rows() === 0) throw new NothingToWrite();
  yield* held;
}

/** Watches the rows as they pass for the largest value of `column`; a result without it fails the run (400 naming the columns). */
function trackColumn(stream: StreamRun, column: string): { largest(): Watermark | null } {
  if (stream.body.kind !== 'rows') throw new Error('an incremental export reads values');
  const index = stream.columns.findIndex((meta) => meta.name === column);
  const columns = stream.columns.map((meta) => meta.name).join(', ');
  let largest: Value = null;
  const batches = stream.body.batches;
  stream.body = {
    kind: 'rows',
    batches: (async function* () {
      // Thrown from inside the body, so the cursor it reads from is closed as the upload fails.
      if (index < 0) throw new SluiceError('invalid_request', `The incremental column "${column}" is not in the query's result (columns: ${columns})`);
      for await (const batch of batches) {
        for (const row of batch) if (later(row[index]!, largest)) largest = row[index]!;
        yield batch;
      }
    })(),
  };
  return { largest: () => watermarkOf(largest, column) };
}

/**
 * Writes the run's outcome, and on success moves the watermark, in one
 * transaction that first checks the lease is still this run's: a run whose
 * lease was taken over is recorded failed and changes nothing else.
 */
async function finishRun(deps: AppDeps, lease: Lease, run: ExportRunRow, outcome: Delivered | { error: string }, from: Watermark | null): Promise<ExportRunRow> {
  return deps.store.db.transaction(async (tx) => {
    const held = await releaseLease(tx, lease);
    const failed = 'error' in outcome ? outcome.error : held ? null : 'The run lost its lease to another run; its object is not counted';
    const delivered = 'error' in outcome ? null : outcome;
    const moved = failed === null && delivered?.watermark != null && (from === null || later(delivered.watermark as Value, from as Value));
    if (moved) await tx.update(exports).set({ watermark: storeWatermark(delivered!.watermark!) }).where(eq(exports.id, lease.exportId));
    const [finished] = await tx
      .update(exportRuns)
      .set({
        status: failed === null ? 'success' : 'error',
        finishedAt: sql`now()`,
        object: delivered?.object?.location ?? null,
        rows: delivered?.rows ?? 0,
        bytes: delivered?.object?.bytes ?? 0,
        watermarkTo: failed !== null ? null : moved ? storeWatermark(delivered!.watermark!) : run.watermarkFrom,
        error: failed,
      })
      .where(eq(exportRuns.id, run.id))
      .returning();
    return finished!;
  });
}
