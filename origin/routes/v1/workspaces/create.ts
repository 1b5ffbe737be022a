import { createWorkspace } from '../../../services/workspaces/create.ts';
import { createFields } from '../../../services/workspaces/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';

/** POST /api/v1/workspaces `{name, description}`: owners only; 201; 409 `workspace_exists`. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createWorkspace',
  summary: 'Create a workspace (owners only)',
  access: 'workspaces.write',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { workspace, etag } = await createWorkspace(c.get('deps'), c.get('caller'), input);
    c.header('ETag', etag);
    c.header('Location', `/api/v1/workspaces/${encodeURIComponent(workspace.name)}`);
    return c.json(workspace, 201);
  },
});
