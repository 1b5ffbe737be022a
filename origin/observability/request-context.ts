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
 * A scope naming its span's trace. The span rides along in a private field:
 * spread into a log line, a scope writes its ids, never the span. (A class
 * rather than a hidden property: defining one made each scope a slow
 * dictionary object, on every request of a traced origin.)
 */
class TracedScope implements RequestScope {
  readonly request_id: string;
  readonly key: string;
  readonly trace_id: string;
  readonly span_id: string;
  readonly #span: TraceSpan;

  constructor(scope: RequestScope, span: TraceSpan) {
    this.request_id = scope.request_id;
    this.key = scope.key;
    this.trace_id = span.traceId;
    this.span_id = span.spanId;
    this.#span = span;
  }

  static spanOf(scope: RequestScope): TraceSpan {
    return scope instanceof TracedScope ? scope.#span : NO_SPAN;
  }
}

/** `scope` naming `span`'s trace; `scope` itself when nothing is traced. */
export function withSpan(scope: RequestScope, span: TraceSpan): RequestScope {
  return span.traceId === '' ? scope : new TracedScope(scope, span);
}

/** The span work for `scope` goes under: its request's server span, or `NO_SPAN`. */
export const spanOf = (scope: RequestScope): TraceSpan => TracedScope.spanOf(scope);
