import { getAdministrator } from '../../../services/administrators/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/administrators/{name}: with an ETag; 404 `admin_not_found`. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getAdministrator',
  summary: 'Read an administrator, with its ETag',
  handler: async (c) => {
    const { administrator, etag } = await getAdministrator(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(administrator);
  },
});
