import { createKey } from '../../../services/keys/create.ts';
import { createKeyFields } from '../../../services/keys/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** POST /api/v1/api-keys: 201 with the key and its `secret`, shown this once (`Cache-Control: no-store`). */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createApiKey',
  summary: 'Create a key from explicit grants or a role; the secret is shown once',
  body: createKeyFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { key, etag } = await createKey(c.get('deps'), c.get('caller'), input, { workspace: scopeOf(c) });
    c.header('Cache-Control', 'no-store');
    c.header('ETag', etag);
    c.header('Location', `/api/v1/api-keys/${encodeURIComponent(key.name)}`);
    return c.json(key, 201);
  },
});
