import { getDestination } from '../../../services/destinations/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/destinations/{name}: the access key id included, the secret masked, with an ETag. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getDestination',
  summary: 'Read a destination (secret masked), with its ETag',
  handler: async (c) => {
    const { destination, etag } = await getDestination(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(destination);
  },
});
