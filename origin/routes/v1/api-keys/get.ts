import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getKey } from '../../../services/keys/get.ts';
import { scopeOf } from './scope.ts';

/** GET /api/v1/api-keys/{name}: the key with its ETag; 404 `key_not_found`. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { key, etag } = await getKey(c.get('deps'), c.req.param('name'), { workspace: scopeOf(c) });
    c.header('ETag', etag);
    return c.json(key);
  });
}
