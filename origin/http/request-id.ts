import { randomBytes } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';

/** Every response carries `X-Request-Id`: 12 hex characters, also on every log line of the request. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = randomBytes(6).toString('hex');
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
  c.res.headers.set('X-Request-Id', id);
});
