import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createKey } from '../../../services/keys/create.ts';
import { createKeyFields } from '../../../services/keys/fields.ts';
import { scopeOf } from './scope.ts';

/** POST /api/v1/api-keys: 201 with the key and its `secret`, shown this once (`Cache-Control: no-store`). */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createKeyFields);
    const { key, etag } = await createKey(c.get('deps'), c.get('caller'), input, { workspace: scopeOf(c) });
    c.header('Cache-Control', 'no-store');
    c.header('ETag', etag);
    c.header('Location', `/api/v1/api-keys/${encodeURIComponent(key.name)}`);
    return c.json(key, 201);
  });
}
