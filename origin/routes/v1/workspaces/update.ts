import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { updateFields } from '../../../services/workspaces/fields.ts';
import { updateWorkspace } from '../../../services/workspaces/update.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/workspaces/{name} `{description}`: owners only; `If-Match`. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateWorkspace',
  summary: 'Change its description (owners only)',
  access: 'workspaces.write',
  body: updateFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { workspace, etag } = await updateWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'), input, c.req.header('if-match'));
    c.header('ETag', etag);
    return c.json(workspace);
  },
});
