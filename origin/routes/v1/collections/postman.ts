import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { collectionPostman } from '../../../services/collections/postman.ts';

/**
 * GET /api/v1/collections/{name}/postman: a Postman v2.1 collection file of
 * the published queries, as a download. `baseUrl` is the server as this
 * request reached it (scheme and host of the request URL, no forwarded
 * headers); 404 `collection_not_found`.
 */
export function registerPostman(api: Hono<AppEnv>): void {
  api.get('/:name/postman', async (c) => {
    const name = c.req.param('name');
    const file = await collectionPostman(c.get('deps'), name, new URL(c.req.url).origin, { workspace: listedWorkspace(c) });
    c.header('Content-Disposition', `attachment; filename="${name.replace(/[^a-z0-9._-]/g, '_')}.postman_collection.json"`);
    return c.json(file);
  });
}
