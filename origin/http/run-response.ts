import type { Context } from 'hono';
import { budgetHeaders, spentBudgetHeaders } from '../../shared/access/budget.ts';
import { ASSERTION_HEADER } from '../../shared/edge/protocol.ts';
import { SluiceError } from '../errors.ts';
import type { Format } from '../formats/index.ts';
import { dryRun } from '../services/run/dry-run.ts';
import { run } from '../services/run/run.ts';
import type { RunRequest, StreamAnswer } from '../services/run/request.ts';
import { streamBytes } from '../services/run/stream-bytes.ts';
import { DEFAULT_CHUNK_ROWS, startResult } from '../services/results/start.ts';
import { asyncPreference, linkBaseOf, respondResult } from './result-response.ts';
import { clientSignal } from './client-signal.ts';
import type { AppEnv } from './context.ts';
import { addTrailers } from './node-response.ts';
import { requestScopeOf, requestSpanOf } from './request-scope.ts';
import { requestHeader } from './request-header.ts';

/**
 * The HTTP adapter of the run path (services/run/run.ts): the request's
 * signal, scope and `If-None-Match` in, a page's bytes and headers or a
 * stream's download out. A key at its `max_concurrent` gets `Retry-After: 1`
 * (the spec's body for it has no `retry_after`; a client may retry in a second).
 */
export async function respondRun(c: Context<AppEnv>, request: Omit<RunRequest, 'signal' | 'scope' | 'ifNoneMatch'>): Promise<Response> {
  if (request.options.dryRun) return respondDryRun(c, request);
  // `Prefer: respond-async` made the options a stream's (streamIfAsync): the whole result, stored.
  const preference = asyncPreference(c);
  if (preference && request.options.stream) {
    const id = await startResult(c.get('deps'), { caller: request.caller, source: request.source, options: request.options, chunkRows: DEFAULT_CHUNK_ROWS, scope: requestScopeOf(c), linkBase: linkBaseOf(c) });
    return respondResult(c, id, preference.wait, { 'Preference-Applied': 'respond-async' });
  }
  let answer;
  try {
    answer = await run(c.get('deps'), { ...request, signal: clientSignal(c), scope: requestScopeOf(c), ifNoneMatch: requestHeader(c, 'if-none-match') });
  } catch (err) {
    if (err instanceof SluiceError && err.status === 429 && err.extras.retry_after === undefined) c.header('Retry-After', '1');
    if (err instanceof SluiceError && err.code === 'budget_exhausted') for (const [name, value] of Object.entries(spentBudgetHeaders(err.extras.budget as 'rows_per_day' | 'db_seconds_per_day'))) c.header(name, value);
    throw err;
  }
  if (answer.kind === 'stream') return download(c, answer, request.options.format);
  if (answer.serializationMs !== null) c.set('serializationMs', answer.serializationMs);
  return new Response(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers: { ...answer.headers, ...budgetHeaders(answer.budget) } });
}

/** A dry run's answer (services/run/dry-run.ts), with what is left of the key's day budget. */
export async function respondDryRun(c: Context<AppEnv>, request: Omit<RunRequest, 'signal' | 'scope' | 'ifNoneMatch'>): Promise<Response> {
  const { answer, budget } = await dryRun(c.get('deps'), { ...request, signal: clientSignal(c), scope: requestScopeOf(c) });
  return c.json(answer, 200, budgetHeaders(budget));
}

/**
 * The whole result as a download, pulled from the cursor as the client
 * reads. Lines the database wrote itself only get the header. It ends with
 * the trailers `Sluice-Rows` (the rows sent) and `Sluice-Complete` (false
 * when a row cap cut them), so a cut stream never passes for a whole one;
 * a stream that fails mid-way ends without its last chunk instead. A
 * request the edge forwarded gets none: a Worker's fetch fails on a
 * response with trailers, and could not pass them on.
 */
async function download(c: Context<AppEnv>, answer: StreamAnswer, format: Format): Promise<Response> {
  const { serializer, chunks } = await streamBytes(answer.run, format, requestSpanOf(c));
  const { run } = answer;
  const trailers = requestHeader(c, ASSERTION_HEADER) === undefined;
  const ended = () => trailers && addTrailers(c, { 'Sluice-Rows': String(run.rows()), 'Sluice-Complete': String(!run.capped()) });
  return new Response(toReadable(chunks, ended), {
    status: 200,
    headers: {
      'Content-Type': serializer.contentType,
      'Content-Disposition': `attachment; filename="${answer.label.filename}.${serializer.extension}"`,
      ...budgetHeaders(answer.budget),
      ...(trailers ? { Trailer: 'Sluice-Rows, Sluice-Complete' } : {}),
    },
  });
}

/**
 * A pull-based stream: the next chunk is produced only when the client has
 * taken the previous one. A client that goes away cancels the stream, which
 * ends the iterator and so closes the database cursor.
 */
function toReadable(chunks: AsyncIterable<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await iterator.next();
          if (done) {
            ended();
            controller.close();
          } else controller.enqueue(value);
        } catch (err) {
          // Mid-stream failure: the download just ends early (headers are already sent).
          controller.error(err);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}
