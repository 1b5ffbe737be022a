import { getWorkspace } from '../../../services/workspaces/list.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/workspaces/{name}: with an ETag; 404 `workspace_not_found` also for one the caller may not see. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getWorkspace',
  summary: 'Read a workspace, with its ETag',
  access: 'administrator',
  handler: async (c) => {
    const { workspace, etag } = await getWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'));
    c.header('ETag', etag);
    return c.json(workspace);
  },
});
