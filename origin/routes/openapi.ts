import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { openApiDocument } from '../services/discovery/openapi.ts';
import { MANAGEMENT_ENDPOINTS, MANAGEMENT_TAGS } from './v1/index.ts';

/**
 * GET /openapi.json (public): the OpenAPI 3.1 document. Its saved-query
 * section depends on the key presented, so it is never shared by caches.
 * `servers` is the server as this request reached it (no forwarded headers).
 * The Management API's part comes from its routes' contracts (routes/v1).
 */
export const openApiRoute = new Hono<AppEnv>().get('/openapi.json', async (c) => {
  const management = { tags: MANAGEMENT_TAGS, endpoints: MANAGEMENT_ENDPOINTS };
  const document = await openApiDocument(c.get('deps'), c.get('caller'), new URL(c.req.url).origin, management);
  c.header('Cache-Control', 'private, no-cache');
  c.header('Vary', 'X-API-Key');
  return c.json(document);
});
