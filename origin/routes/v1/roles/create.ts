import { createRole } from '../../../services/roles/create.ts';
import { createRoleFields } from '../../../services/roles/fields.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { CREATED, defineRoute } from '../contract.ts';

/** POST /api/v1/roles: 201 with the role and its ETag; 409 `role_exists`. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createRole',
  summary: 'Create a role (a template of key grants)',
  body: createRoleFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { role, etag } = await createRole(c.get('deps'), c.get('caller'), input, { workspace: scopeOf(c) });
    c.header('ETag', etag);
    c.header('Location', `/api/v1/roles/${encodeURIComponent(role.name)}`);
    return c.json(role, 201);
  },
});
