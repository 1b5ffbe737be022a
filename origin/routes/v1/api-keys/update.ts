import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateKeyFields } from '../../../services/keys/fields.ts';
import { updateKey } from '../../../services/keys/update.ts';
import { scopeOf } from './scope.ts';

/** PATCH /api/v1/api-keys/{name}: absent fields stay, null resets; `If-Match` optional (412 when stale). */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const input = await readBody(c, updateKeyFields);
    const { key, etag } = await updateKey(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(key);
  });
}
