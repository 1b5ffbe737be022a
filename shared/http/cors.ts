/**
 * CORS as the origin answers it (origin/http/cors.ts) and the edge repeats
 * on the answers it gives itself: origins listed in `SLUICE_CORS_ORIGINS`
 * (`*`: any), no credentials.
 */

export const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const ALLOW_HEADERS = 'Content-Type, X-API-Key, traceparent, tracestate';
export const EXPOSE_HEADERS = [
  'X-Page',
  'X-Page-Size',
  'X-Has-More',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Key-Limit',
  'X-RateLimit-Key-Remaining',
  'Retry-After',
  'X-Request-Id',
  'ETag',
  'X-Cache',
  'X-Budget-Rows-Remaining',
  'X-Budget-Seconds-Remaining',
  'Server-Timing',
  'traceresponse',
].join(', ');
export const MAX_AGE_S = '600';

/** Whether `origin` is allowed, and the `Access-Control-Allow-Origin` it gets. */
export function corsDecision(allowed: readonly string[], origin: string): { permitted: boolean; allowOrigin: string } {
  return { permitted: allowed.includes('*') || allowed.includes(origin), allowOrigin: allowed.includes('*') ? '*' : origin };
}
