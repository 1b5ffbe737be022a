import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { openApiDocument } from '../services/discovery/openapi.ts';

/**
 * GET /openapi.json (public): the OpenAPI 3.1 document. Its saved-query
 * section depends on the key presented, so it is never shared by caches.
 * `servers` is the server as this request reached it (no forwarded headers).
 */
export const openApiRoute = new Hono<AppEnv>().get('/openapi.json', async (c) => {
  const document = await openApiDocument(c.get('deps'), c.get('caller'), new URL(c.req.url).origin);
  c.header('Cache-Control', 'private, no-cache');
  c.header('Vary', 'X-API-Key');
  return c.json(document);
});
