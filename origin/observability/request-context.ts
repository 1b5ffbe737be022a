import type { Context } from 'hono';
import type { AppEnv } from '../http/context.ts';

/** What a log line or a metric needs to know about the request it belongs to. */
export interface RequestScope {
  request_id: string;
  /** `admin`, a key's or administrator's name, or `-`. */
  key: string;
}

/** The scope of lines written outside any request (startup, timers). */
export const NO_REQUEST: RequestScope = Object.freeze({ request_id: '-', key: '-' });

/**
 * The request's id and caller, for the lines written on its behalf. Passed
 * explicitly rather than found through an AsyncLocalStorage: on Node 20 that
 * puts hooks on every promise the process makes, measured at ~0.14 ms of the
 * main thread per one-row query (ADR 0015).
 */
export function requestScopeOf(c: Context<AppEnv>): RequestScope {
  return { request_id: c.get('requestId') ?? '-', key: c.get('caller')?.name ?? '-' };
}
