import { deleteDestination } from '../../../services/destinations/delete.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/destinations/{name}: answers what was removed; 409 `destination_in_use` while an export delivers to it. `If-Match` optional. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteDestination',
  summary: 'Delete a destination no export uses',
  parameters: [IF_MATCH],
  handler: async (c) =>
    c.json(await deleteDestination(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c), ifMatch: c.req.header('if-match') })),
});
