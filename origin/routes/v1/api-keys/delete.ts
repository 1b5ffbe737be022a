import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteKey } from '../../../services/keys/delete.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** DELETE /api/v1/api-keys/{name}: revokes and removes it; answers what was removed. `If-Match` optional. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteApiKey',
  summary: 'Revoke and remove a key',
  parameters: [IF_MATCH],
  handler: async (c) => c.json(await deleteKey(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: scopeOf(c), ifMatch: c.req.header('if-match') })),
});
