import type { Context } from 'hono';
import { pageSerialized } from '../observability/query-log.ts';
import type { RunEntry } from '../services/history/recorder.ts';
import { failureMessage, isRecordedFailure, roundMs } from '../services/history/outcome.ts';
import type { RowOptions } from '../services/run/options.ts';
import { type PageRun, type RunInput, type StreamRun, runPage, runStream } from '../services/run/run-sql.ts';
import type { AppEnv } from './context.ts';
import { pageResponse, streamResponse } from './rows-response.ts';

/** What a run is recorded as besides its outcome. */
export interface RunLabel {
  /** Null for ad-hoc SQL. */
  query: string | null;
  version: number | null;
  /** Download name without extension, already safe for a header. */
  filename: string;
  /** Recorded instead of `http` (a page) or `stream`: `mcp` for an MCP tool call. */
  transport?: 'mcp';
}

type Outcome = Pick<RunEntry, 'status' | 'rows' | 'durationMs' | 'serializationMs' | 'error' | 'details'>;

/** Where a request's rows come from: a SQL statement (run-sql.ts) or a document query (run-documents.ts). */
export interface RowsSource {
  connection: string;
  options: RowOptions;
  signal: AbortSignal;
  page(): Promise<PageRun>;
  /** A stream whose `fieldsDropped` (document CSV/TSV streams) is recorded in its history entry. */
  stream(): Promise<StreamRun & { fieldsDropped?(): number }>;
}

/**
 * Runs a statement through the engine and answers its rows, paged or
 * streamed, recording the run in history: a page once it is serialised, a
 * stream once its download ends (completely, capped, failed or abandoned).
 * Failures the request caused itself (4xx) are not runs and are not recorded.
 */
export function respondRows(c: Context<AppEnv>, input: RunInput, label: RunLabel): Promise<Response> {
  const deps = c.get('deps');
  return respondSource(c, { ...input, page: () => runPage(deps, input), stream: () => runStream(deps, input) }, label);
}

/** `respondRows` for any source of rows. */
export async function respondSource(c: Context<AppEnv>, input: RowsSource, label: RunLabel): Promise<Response> {
  const deps = c.get('deps');
  const started = performance.now();
  const record = (outcome: Outcome) =>
    deps.history.record({
      time: new Date(),
      query: label.query,
      version: label.version,
      connection: input.connection,
      transport: label.transport ?? (input.options.paging === null ? 'stream' : 'http'),
      format: input.options.format,
      requestId: c.get('requestId') ?? null,
      keyName: c.get('caller')?.name ?? null,
      ...outcome,
    });
  const failed = (err: unknown, rows = 0) => {
    if (isRecordedFailure(err)) {
      record({ status: 'error', rows, durationMs: roundMs(performance.now() - started), serializationMs: null, error: failureMessage(err, input.signal) });
    }
  };

  if (input.options.paging === null) {
    let run;
    try {
      run = await input.stream();
    } catch (err) {
      failed(err);
      throw err;
    }
    const response = await streamResponse(run, input.options.format, label.filename);
    const details = () => (run.fieldsDropped ? { fields_dropped: run.fieldsDropped() } : undefined);
    return watchDownload(response, input.signal, (error) =>
      record({ status: error === null ? 'success' : 'error', rows: run.rows(), durationMs: roundMs(performance.now() - started), serializationMs: null, error, details: details() }),
    );
  }

  let run: PageRun;
  try {
    run = await input.page();
  } catch (err) {
    failed(err);
    throw err;
  }
  const durationMs = roundMs(performance.now() - started);
  try {
    const { response, serializationMs } = await pageResponse(c, run, input.options.format, input.options.paging, label.filename);
    c.set('serializationMs', pageSerialized(input.options.format, serializationMs));
    record({ status: 'success', rows: run.rows.length, durationMs, serializationMs: roundMs(serializationMs), error: null });
    return response;
  } catch (err) {
    failed(err, run.rows.length);
    throw err;
  }
}

const CLIENT_GONE = 'client went away';

/**
 * Passes a download through and calls `done` exactly once when it ends: null
 * when the last byte was handed over, else what cut it short (a client that
 * goes away aborts the request's signal before the body is cancelled).
 */
function watchDownload(response: Response, signal: AbortSignal, done: (error: string | null) => void): Response {
  let settled = false;
  const settle = (error: string | null) => {
    if (settled) return;
    settled = true;
    signal.removeEventListener('abort', onAbort);
    done(error);
  };
  const onAbort = () => settle(CLIENT_GONE);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: finished, value } = await reader.read();
          if (finished) {
            settle(null);
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          settle(failureMessage(err, signal));
          controller.error(err);
        }
      },
      async cancel(reason) {
        settle(CLIENT_GONE);
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
