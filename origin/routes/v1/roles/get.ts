import { getRole } from '../../../services/roles/get.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/roles/{name}: the role with its ETag; 404 `role_not_found`. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getRole',
  summary: 'Read a role, with its ETag',
  handler: async (c) => {
    const { role, etag } = await getRole(c.get('deps'), c.req.param('name'), { workspace: scopeOf(c) });
    c.header('ETag', etag);
    return c.json(role);
  },
});
