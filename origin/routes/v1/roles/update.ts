import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { updateRoleFields } from '../../../services/roles/fields.ts';
import { updateRole } from '../../../services/roles/update.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/roles/{name}: absent fields stay, null resets; keys made from it are untouched. `If-Match` optional. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateRole',
  summary: 'Change a role; keys created from it are untouched',
  body: updateRoleFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { role, etag } = await updateRole(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(role);
  },
});
