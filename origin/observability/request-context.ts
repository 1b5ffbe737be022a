import { NO_SPAN, type TraceSpan } from './tracing/span.ts';

/** What a log line or a metric needs to know about the request it belongs to. */
export interface RequestScope {
  request_id: string;
  /** `admin`, a key's or administrator's name, or `-`. */
  key: string;
  /** The request's trace and its server span, when tracing is on: on every line written for it. */
  trace_id?: string;
  span_id?: string;
}

/** The scope of lines written outside any request (startup, timers). */
export const NO_REQUEST: RequestScope = Object.freeze({ request_id: '-', key: '-' });

/**
 * `scope` naming `span`'s trace. The span itself rides along unlisted (not
 * enumerable): spread into a log line, a scope writes its ids, never the span.
 */
export function withSpan(scope: RequestScope, span: TraceSpan): RequestScope {
  if (span.traceId === '') return scope;
  const traced: RequestScope = { ...scope, trace_id: span.traceId, span_id: span.spanId };
  Object.defineProperty(traced, 'span', { value: span, enumerable: false });
  return traced;
}

/** The span work for `scope` goes under: its request's server span, or `NO_SPAN`. */
export function spanOf(scope: RequestScope): TraceSpan {
  return (scope as { span?: TraceSpan }).span ?? NO_SPAN;
}
