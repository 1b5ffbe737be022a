import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../http/context.ts';

/** One line per request with its outcome; the caller's name, never their key. */
export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  c.get('deps').logger.info(
    {
      request_id: c.get('requestId'),
      key: c.get('caller')?.name ?? '-',
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    },
    'request',
  );
});
