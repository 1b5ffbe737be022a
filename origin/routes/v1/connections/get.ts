import { getConnection } from '../../../services/connections/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/connections/{name}: options and user included, password masked, with an ETag. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getConnection',
  summary: 'Read a connection (password masked), with its ETag',
  handler: async (c) => {
    const { connection, etag } = await getConnection(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(connection);
  },
});
