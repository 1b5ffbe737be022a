import { createMiddleware } from 'hono/factory';
import { clientGone } from './client-signal.ts';
import type { AppEnv } from './context.ts';
import { requestScopeOf } from './request-scope.ts';
import { endpointOf } from '../observability/endpoint.ts';
import { countRequest } from '../observability/metrics.ts';

/** nginx's "client closed request". */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * One `sluice.access` line per request with its outcome, and the request
 * metrics. The caller is named, never their key; the path is logged without
 * its query string. A streamed body is logged and timed when its headers go
 * out (its run's own end is in the query line and run history). A request
 * whose client left before its answer is logged and counted as 499:
 * whatever the handler answered (often the 500 of the statement cancelled
 * for it) never reached anyone, and is no server failure.
 */
export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  const ms = performance.now() - started;
  const scope = requestScopeOf(c);
  const status = clientGone(c) ? CLIENT_CLOSED_REQUEST : c.res.status;
  countRequest({ method: c.req.method, endpoint: endpointOf(c), status, key: scope.key, seconds: ms / 1000, traceId: scope.trace_id });
  c.get('deps').logger.info(
    {
      logger: 'sluice.access',
      ...scope,
      method: c.req.method,
      path: c.req.path,
      status,
      duration_ms: Math.round(ms * 100) / 100,
      serialization_ms: c.get('serializationMs') ?? null,
    },
    `${c.req.method} ${c.req.path} ${status}`,
  );
});
