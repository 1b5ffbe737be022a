import { getKey } from '../../../services/keys/get.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** GET /api/v1/api-keys/{name}: the key with its ETag; 404 `key_not_found`. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getApiKey',
  summary: 'Read a key, with its ETag',
  handler: async (c) => {
    const { key, etag } = await getKey(c.get('deps'), c.req.param('name'), { workspace: scopeOf(c) });
    c.header('ETag', etag);
    return c.json(key);
  },
});
