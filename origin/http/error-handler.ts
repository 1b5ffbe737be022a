import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SluiceError } from '../errors.ts';
import { requestScopeOf } from './request-scope.ts';
import type { AppEnv } from './context.ts';
import { isManagementPath } from './route-family.ts';
import { storeUnavailable } from './store-gate.ts';

/** `/results` answers its errors with a `code`, as the Management API does: a client tells an expired link from a changed one by it. */
const isResultsPath = (path: string) => path === '/results' || path.startsWith('/results/');

/** The one place an error becomes a response, in the spec's shape for the route family; a `retry_after` is also sent as `Retry-After`. */
export function errorResponse(err: SluiceError, c: Context<AppEnv>): Response {
  const requestId = c.get('requestId');
  const body = isManagementPath(c.req.path) || isResultsPath(c.req.path)
    ? { error: err.message, code: err.code, request_id: requestId, ...err.extras }
    : { error: err.message, ...err.extras };
  const retryAfter = err.extras.retry_after;
  return c.json(body, err.status as ContentfulStatusCode, typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter) } : undefined);
}

export async function onError(err: Error, c: Context<AppEnv>): Promise<Response> {
  if (err instanceof SluiceError) return errorResponse(err, c);
  if (err instanceof HTTPException && err.status < 500) {
    return errorResponse(new SluiceError('invalid_request', err.message || 'Bad request'), c);
  }
  // A store that went away: one line for the outage (store/availability.ts), none per request.
  if (await c.get('deps').storeAvailability.explains(err)) return errorResponse(storeUnavailable(), c);
  // Unexpected: log it under the request id, answer opaquely (driver messages can carry credentials).
  c.get('deps').logger.error({ ...requestScopeOf(c), err: { name: err.name, stack: err.stack } }, 'unhandled error');
  return errorResponse(new SluiceError('internal_error', 'Internal server error'), c);
}

export function onNotFound(c: Context<AppEnv>): Response {
  return errorResponse(new SluiceError('not_found', `No route for ${c.req.method} ${c.req.path}`), c);
}
