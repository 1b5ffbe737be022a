import type { Context } from 'hono';
import type { RequestScope } from '../observability/request-context.ts';
import type { AppEnv } from './context.ts';

/**
 * The request's id and caller, for the lines written on its behalf. Passed
 * explicitly rather than found through an AsyncLocalStorage: on Node 20 that
 * puts hooks on every promise the process makes, the largest cost the origin
 * added to a one-row query (ADR 0015).
 */
export function requestScopeOf(c: Context<AppEnv>): RequestScope {
  return { request_id: c.get('requestId') ?? '-', key: c.get('caller')?.name ?? '-' };
}
