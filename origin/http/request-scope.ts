import type { Context } from 'hono';
import { type RequestScope, withSpan } from '../observability/request-context.ts';
import { NO_SPAN, type TraceSpan } from '../observability/tracing/span.ts';
import type { AppEnv } from './context.ts';

/**
 * The request's id, caller and trace, for the lines written and the spans
 * started on its behalf. Passed explicitly rather than found through an
 * AsyncLocalStorage: on Node 20 that puts hooks on every promise the process
 * makes, the largest cost the origin added to a one-row query (ADR 0015).
 */
export function requestScopeOf(c: Context<AppEnv>): RequestScope {
  return withSpan({ request_id: c.get('requestId') ?? '-', key: c.get('caller')?.name ?? '-' }, requestSpanOf(c));
}

/** The request's server span (`NO_SPAN` when tracing is off). */
export function requestSpanOf(c: Context<AppEnv>): TraceSpan {
  return c.get('span') ?? NO_SPAN;
}
