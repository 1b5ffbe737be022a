import { deleteAdministrator } from '../../../services/administrators/delete.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/administrators/{name}: with their tokens and memberships; `If-Match`; 409 `last_owner`. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteAdministrator',
  summary: 'Remove an administrator and their tokens (owners only)',
  parameters: [IF_MATCH],
  handler: async (c) => c.json(await deleteAdministrator(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.header('if-match'))),
});
