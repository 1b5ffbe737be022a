import { getQuery } from '../../../services/queries/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/queries/{name}: every version with its SQL, newest first, and an ETag; 404 `query_not_found`. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getQuery',
  summary: 'Read a query with every version and its SQL',
  handler: async (c) => {
    const { query, etag } = await getQuery(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(query);
  },
});
