import { collectionPostman } from '../../../services/collections/postman.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/**
 * GET /api/v1/collections/{name}/postman: a Postman v2.1 collection file of
 * the published queries, as a download. `baseUrl` is the server as this
 * request reached it (scheme and host of the request URL, no forwarded
 * headers); 404 `collection_not_found`.
 */
export const postman = defineRoute({
  method: 'get',
  path: '/:name/postman',
  id: 'getCollectionPostman',
  summary: 'A Postman v2.1 collection file of its published queries',
  handler: async (c) => {
    const name = c.req.param('name');
    const file = await collectionPostman(c.get('deps'), name, new URL(c.req.url).origin, { workspace: listedWorkspace(c) });
    c.header('Content-Disposition', `attachment; filename="${name.replace(/[^a-z0-9._-]/g, '_')}.postman_collection.json"`);
    return c.json(file);
  },
});
