import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';
import { ALLOW_HEADERS, ALLOW_METHODS, EXPOSE_HEADERS, MAX_AGE_S, corsDecision } from '../../shared/http/cors.ts';
import { requestHeader } from './request-header.ts';

/**
 * CORS for the origins in `SLUICE_CORS_ORIGINS` (off when unset; `*` allows
 * any). A listed origin's preflight is answered here, before authentication
 * (a browser sends no key with it), and its other responses, errors
 * included, carry `Access-Control-Allow-Origin` and the exposed headers.
 * No credentials: callers send their key in a header.
 */

export const cors = createMiddleware<AppEnv>(async (c, next) => {
  const allowed = c.get('deps').env.SLUICE_CORS_ORIGINS;
  const origin = requestHeader(c, 'origin');
  if (allowed.length === 0 || !origin) return next();
  const { permitted, allowOrigin } = corsDecision(allowed, origin);

  if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
    c.header('Vary', 'Origin');
    if (permitted) {
      c.header('Access-Control-Allow-Origin', allowOrigin);
      c.header('Access-Control-Allow-Methods', ALLOW_METHODS);
      c.header('Access-Control-Allow-Headers', ALLOW_HEADERS);
      c.header('Access-Control-Max-Age', MAX_AGE_S);
    }
    return c.body(null, 204);
  }

  await next();
  c.header('Vary', 'Origin', { append: true });
  if (permitted) {
    c.header('Access-Control-Allow-Origin', allowOrigin);
    c.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  }
});
