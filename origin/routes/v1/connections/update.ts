import { updateFields } from '../../../services/connections/fields.ts';
import { updateConnection } from '../../../services/connections/update.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/connections/{name}: `If-Match` optional; 412 `precondition_failed` when stale. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateConnection',
  summary: 'Change a connection',
  body: updateFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { connection, etag } = await updateConnection(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
      checkPrivileges: true,
    });
    c.header('ETag', etag);
    return c.json(connection);
  },
});
