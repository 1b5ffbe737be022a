import { removeFields } from '../../../services/connections/fields.ts';
import { deleteConnection } from '../../../services/connections/delete.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/connections/{name} with `{reason}` (else 400 `reason_required`); answers the deleted-list entry. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteConnection',
  summary: 'Delete a connection; a reason is required',
  body: removeFields,
  emptyBody: 'verb',
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const deleted = await deleteConnection(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    return c.json(deleted);
  },
});
