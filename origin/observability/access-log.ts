import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../http/context.ts';
import { endpointOf } from './endpoint.ts';
import { countRequest } from './metrics.ts';

/**
 * One `sluice.access` line per request with its outcome, and the request
 * metrics. The caller is named, never their key; the path is logged without
 * its query string. A streamed body is logged and timed when its headers go
 * out (its run's own end is in the query line and run history).
 */
export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  const ms = performance.now() - started;
  const key = c.get('caller')?.name ?? '-';
  countRequest({ method: c.req.method, endpoint: endpointOf(c), status: c.res.status, key, seconds: ms / 1000 });
  c.get('deps').logger.info(
    {
      logger: 'sluice.access',
      request_id: c.get('requestId'),
      key,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round(ms * 100) / 100,
      serialization_ms: c.get('serializationMs') ?? null,
    },
    `${c.req.method} ${c.req.path} ${c.res.status}`,
  );
});
