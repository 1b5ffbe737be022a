import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteRole } from '../../../services/roles/delete.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/roles/{name}: keys made from it keep their grants; answers what was removed. `If-Match` optional. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteRole',
  summary: 'Delete a role; keys created from it are untouched',
  parameters: [IF_MATCH],
  handler: async (c) => c.json(await deleteRole(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: scopeOf(c), ifMatch: c.req.header('if-match') })),
});
