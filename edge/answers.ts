import { ERROR_STATUS, type ErrorCode } from '../shared/errors.ts';
import { isManagementPath } from '../shared/http/route-family.ts';
import { EXPOSE_HEADERS, corsDecision } from '../shared/http/cors.ts';

/** 12 hex characters, as the origin's `X-Request-Id`. */
export function newRequestId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** An error the edge answers itself, in the origin's shape for the route family. */
export function errorAnswer(path: string, requestId: string, code: ErrorCode, message: string, extras: Record<string, unknown> = {}): Response {
  const body = isManagementPath(path) ? { error: message, code, request_id: requestId, ...extras } : { error: message, ...extras };
  return new Response(JSON.stringify(body), {
    status: ERROR_STATUS[code],
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
  });
}

/** CORS headers of an answer the edge gives itself, as the origin adds them to its own (origin/http/cors.ts). */
export function addCors(headers: Headers, allowed: readonly string[], origin: string | null): void {
  if (allowed.length === 0 || !origin) return;
  const { permitted, allowOrigin } = corsDecision(allowed, origin);
  headers.append('Vary', 'Origin');
  if (permitted) {
    headers.set('Access-Control-Allow-Origin', allowOrigin);
    headers.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  }
}
