import { createAdministrator } from '../../../services/administrators/create.ts';
import { createFields } from '../../../services/administrators/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';

/**
 * POST /api/v1/administrators `{name, role, email}`: 201 with an ETag; 409
 * `admin_exists`, `name_taken`, `last_owner`. From an open server the answer
 * also holds a first `token` with its secret, hence `no-store`.
 */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createAdministrator',
  summary: 'Create an administrator (owners only)',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { administrator, etag, token } = await createAdministrator(c.get('deps'), c.get('caller'), input);
    c.header('ETag', etag);
    c.header('Location', `/api/v1/administrators/${encodeURIComponent(administrator.name)}`);
    if (token) c.header('Cache-Control', 'no-store');
    return c.json(token ? { ...administrator, token } : administrator, 201);
  },
});
