import type { AppDeps } from '../../deps.ts';
import type { Admission } from '../../access/usage.ts';
import { refuseOverEstimate } from './budget.ts';
import { pageSerialized } from '../../observability/query-log.ts';
import { spanOf } from '../../observability/request-context.ts';
import { NO_SPAN, inSpan } from '../../observability/tracing/span.ts';
import { cachedPage, isCacheable, type AnsweredPage } from './cache.ts';
import type { PageRun, StreamRun } from './engine.ts';
import { runDocumentPage, runDocumentStream } from './find.ts';
import { type PageBody, pageBody } from './page-body.ts';
import { type Prepared, prepare } from './prepare.ts';
import { failureOf, runRecord } from './record.ts';
import type { PageAnswer, RunAnswer, RunRequest, StreamAnswer } from './request.ts';
import { runPage, runStream } from './sql.ts';

/**
 * The run path: the one call every transport makes (`/execute_sql`, `/q`,
 * `/execute_mongo`, MCP tools, exports), which they only adapt.
 *
 * In order: the source is prepared (reachability, parameters, the guard and
 * the grants: a refusal is the request's fault and nothing runs); a key
 * with `max_estimated_rows` has the planner's estimate checked (403); the
 * call is admitted (a key's `max_concurrent`, day budget and quota: 429,
 * held until the rows end); a cacheable page is answered from the response cache or stored in
 * it; otherwise the engine runs the statement or find (usage, metrics, query
 * log); and the run is recorded in history exactly once (which also
 * announces it on `/events`), when its page is serialised or its stream's
 * rows end.
 */
export async function run(deps: AppDeps, request: RunRequest): Promise<RunAnswer> {
  let prepared: Prepared;
  try {
    prepared = await prepare(deps, request);
  } catch (err) {
    const source = request.source;
    runRecord(deps, request, { query: source.kind === 'saved' ? source.name : null, version: null, connection: null, filename: 'result' }).failed(err);
    throw err;
  }
  await refuseOverEstimate(deps, request, prepared);
  // Only a scoped key is admitted by anything (its concurrency, budget, quota and call count): no span for the others.
  const admitting = request.caller.key ? spanOf(request.scope) : NO_SPAN;
  const admission = await inSpan(admitting, 'sluice.admission', { 'sluice.admission.check': 'caller' }, () => deps.callerUsage.admit(request.caller));
  try {
    if (request.options.paging === null) return await streamAnswer(deps, request, prepared, admission);
    const page = await pageAnswer(deps, request, prepared);
    admission.release();
    return { ...page, budget: admission.budget };
  } catch (err) {
    admission.release();
    throw err;
  }
}

async function pageAnswer(deps: AppDeps, request: RunRequest, prepared: Prepared): Promise<Omit<PageAnswer, 'budget'>> {
  const { label } = prepared;
  const paging = request.options.paging!;
  // Only a page the engine runs is recorded: a cache hit answers without one.
  const produce = async (): Promise<PageBody> => {
    const record = runRecord(deps, request, label);
    let page: PageRun;
    try {
      page = await enginePage(deps, request, prepared);
    } catch (err) {
      record.failed(err);
      throw err;
    }
    try {
      const format = request.options.format;
      const body = await inSpan(spanOf(request.scope), 'sluice.serialize', { 'sluice.format': format }, async (span) => {
        const serialized = await pageBody(page, format, paging, label.filename);
        span.set({ 'sluice.bytes': serialized.body.byteLength });
        return serialized;
      });
      const serializationMs = pageSerialized(request.options.format, body.serializationMs);
      record.done({ status: 'success', rows: page.rows.length, serializationMs, error: null });
      return { ...body, serializationMs };
    } catch (err) {
      record.failed(err, page.rows.length);
      throw err;
    }
  };
  const target = prepared.cache && label.query !== null && label.version !== null
    ? { ...prepared.cache, query: label.query, version: label.version, connection: label.connection!, options: request.options }
    : null;
  let answered: AnsweredPage;
  if (target && isCacheable(target)) {
    answered = await cachedPage(deps, request.scope, target, request.ifNoneMatch, produce);
  } else {
    const body = await produce();
    answered = { status: 200, body: body.body, headers: body.headers, serializationMs: body.serializationMs };
  }
  return { kind: 'page', label, ...answered };
}

/** What every engine run is given besides its input: the consumer's signal, the request and the saved query run. */
function runOf(request: RunRequest, { label }: Prepared) {
  return { signal: request.signal, scope: request.scope, saved: label.query === null ? undefined : { name: label.query, version: label.version } };
}

function enginePage(deps: AppDeps, request: RunRequest, prepared: Prepared): Promise<PageRun> {
  const { engine } = prepared;
  const run = runOf(request, prepared);
  return engine.kind === 'sql' ? runPage(deps, { ...engine.input, ...run }) : runDocumentPage(deps, { ...engine.input, ...run });
}

const CLIENT_GONE = 'client went away';

/**
 * A stream whose rows settle the run when they end: recorded (success, the
 * failure, or the client gone: the request's signal) and its admission
 * released. An export settles it itself once its object is committed.
 */
async function streamAnswer(deps: AppDeps, request: RunRequest, prepared: Prepared, admission: Admission): Promise<StreamAnswer> {
  const record = runRecord(deps, request, prepared.label);
  let stream: StreamRun;
  try {
    stream = await engineStream(deps, request, prepared);
  } catch (err) {
    record.failed(err);
    throw err;
  }
  const details = () => (stream.fieldsDropped ? { fields_dropped: stream.fieldsDropped() } : undefined);
  const settle = (error: unknown, gone = false) => {
    if (!record.settled) {
      if (error === null) record.done({ status: 'success', rows: stream.rows(), serializationMs: null, error: null, details: details() });
      else record.done({ status: 'error', rows: stream.rows(), serializationMs: null, error: gone ? CLIENT_GONE : failureOf(error, request.signal), details: details() });
    }
    request.signal.removeEventListener('abort', onAbort);
    admission.release();
  };
  const onAbort = () => settle(CLIENT_GONE, true);
  const exported = request.transport === 'export';
  if (!exported) {
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    stream.body = settledAtEnd(stream.body, settle);
  }
  return {
    kind: 'stream',
    label: prepared.label,
    budget: admission.budget,
    run: stream,
    settle(outcome) {
      if (!exported) return;
      if (outcome.error === undefined) {
        record.done({ status: 'success', rows: stream.rows(), serializationMs: null, error: null, details: outcome.details });
      } else {
        record.done({ status: 'error', rows: 0, serializationMs: null, error: failureOf(outcome.error, request.signal), details: outcome.details });
      }
      admission.release();
    },
  };
}

async function engineStream(deps: AppDeps, request: RunRequest, prepared: Prepared): Promise<StreamRun> {
  const { engine, label } = prepared;
  const run = runOf(request, prepared);
  const consumer = request.consumer;
  const ready = consumer ? await consumer.ready(label) : undefined;
  if (engine.kind === 'find') return runDocumentStream(deps, { ...engine.input, ...run });
  return runStream(deps, {
    ...engine.input,
    ...run,
    valuesOnly: consumer?.valuesOnly,
    parquetFile: consumer ? { path: ready?.parquetPath, chunkRows: ready?.parquetChunkRows } : undefined,
  });
}

/** The body, calling `settle` once when its rows end: null when read to the end, else what cut it short. */
function settledAtEnd(body: StreamRun['body'], settle: (error: unknown, gone?: boolean) => void): StreamRun['body'] {
  async function* watched<T>(items: AsyncIterable<T>) {
    let ended = false;
    try {
      yield* items;
      ended = true;
      settle(null);
    } catch (err) {
      ended = true;
      settle(err);
      throw err;
    } finally {
      // Stopped before its end: the consumer went away.
      if (!ended) settle(CLIENT_GONE, true);
    }
  }
  if (body.kind === 'rows') return { kind: 'rows', batches: watched(body.batches) };
  if (body.kind === 'lines') return { ...body, chunks: watched(body.chunks) };
  return { ...body, chunks: watched(body.chunks) };
}
