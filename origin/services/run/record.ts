import type { AppDeps } from '../../deps.ts';
import type { RunEntry } from '../history/recorder.ts';
import { SluiceError } from '../../errors.ts';
import { failureMessage, isRecordedFailure, roundMs } from '../history/outcome.ts';
import type { RunRequest } from './request.ts';

/** What a run is recorded as besides its outcome. */
export interface RunLabel {
  /** Null for ad-hoc SQL and documents. */
  query: string | null;
  version: number | null;
  /** Null until the run's connection is known ('-' in history). */
  connection: string | null;
  /** Download name without extension, already safe for a header. */
  filename: string;
}

export type Outcome = Pick<RunEntry, 'status' | 'rows' | 'serializationMs' | 'error' | 'details'>;

/** A run's one history entry: `done` records it the first time it is called, and never again. */
export interface RunRecord {
  done(outcome: Outcome): void;
  /** A failure, if it is one history keeps (5xx: the run failed; a 4xx is the request's fault and nothing ran). */
  failed(err: unknown, rows?: number): void;
  readonly settled: boolean;
}

/**
 * The run history entry of one run, written exactly once whichever way the
 * run ends: a page once it is serialised, a stream once its rows end
 * (completely, capped, failed or abandoned), an export once its object is
 * committed. Its transport is the call's (`http` for a page, `stream`,
 * `mcp`, `export`). An export run's every failure is recorded (it is a
 * scheduled piece of work whose failures matter); for the others only the
 * failures that are runs.
 */
export function runRecord(deps: AppDeps, request: RunRequest, label: RunLabel): RunRecord {
  const started = performance.now();
  let settled = false;
  const transport = request.transport === 'http' ? (request.options.paging === null ? 'stream' : 'http') : request.transport;
  const record: RunRecord = {
    get settled() {
      return settled;
    },
    done(outcome) {
      if (settled) return;
      settled = true;
      deps.history.record({
        time: new Date(),
        query: label.query,
        version: label.version,
        connection: label.connection ?? '-',
        transport,
        format: request.options.format,
        requestId: request.scope.request_id === '-' ? null : request.scope.request_id,
        traceId: request.scope.trace_id ?? null,
        keyName: request.caller.name ?? null,
        durationMs: roundMs(performance.now() - started),
        ...outcome,
        details: outcome.details ?? request.details ?? null,
      });
    },
    failed(err, rows = 0) {
      if (request.transport !== 'export' && !isRecordedFailure(err)) return;
      record.done({ status: 'error', rows, serializationMs: null, error: failureOf(err, request.signal) });
    },
  };
  return record;
}

/** What cut a run short: a cancel with a reason of its own (an export's timeout, a lost lease) says it; a client's says it went away. */
export function failureOf(err: unknown, signal: AbortSignal): string {
  return signal.aborted && signal.reason instanceof SluiceError ? failureMessage(signal.reason) : failureMessage(err, signal);
}
