import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { SluiceError } from '../errors.ts';
import type { AppEnv } from './context.ts';

/** Answer without a key: the spec's public endpoints. */
const PUBLIC_PATHS = new Set(['/health', '/docs', '/openapi.json', '/metrics']);
const isPublic = (path: string) => PUBLIC_PATHS.has(path) || path === '/console' || path.startsWith('/console/');

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Identifies the caller. With `SLUICE_API_KEY` unset the server is open and
 * the caller is `-`; with it set, every non-public request must present it in
 * `X-API-Key`. Secrets are compared as SHA-256 digests in constant time, so
 * neither content nor length leaks through timing.
 */
export const identifyCaller = createMiddleware<AppEnv>(async (c, next) => {
  const adminKey = c.get('deps').env.SLUICE_API_KEY;
  if (!adminKey) {
    c.set('caller', { name: '-', admin: true, via: 'open' });
    return next();
  }
  const presented = c.req.header('x-api-key');
  if (presented && timingSafeEqual(digest(presented), digest(adminKey))) {
    c.set('caller', { name: 'admin', admin: true, via: 'break-glass' });
    return next();
  }
  if (isPublic(c.req.path)) {
    c.set('caller', { name: '-', admin: false, via: 'anonymous' });
    return next();
  }
  throw new SluiceError('unauthorized', 'Missing or invalid API key');
});
