import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { rotateFields } from '../../../services/keys/fields.ts';
import { rotateKey } from '../../../services/keys/rotate.ts';
import { scopeOf } from './scope.ts';

/** POST /api/v1/api-keys/{name}/rotate `{grace_minutes}` (optional body): the key with its new `secret`, shown once. */
export function registerRotate(api: Hono<AppEnv>): void {
  api.post('/:name/rotate', async (c) => {
    const input = await readBody(c, rotateFields, { optional: true });
    const { key, etag } = await rotateKey(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('Cache-Control', 'no-store');
    c.header('ETag', etag);
    return c.json(key);
  });
}
