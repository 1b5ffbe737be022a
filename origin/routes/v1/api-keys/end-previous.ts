import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { endPreviousSecret } from '../../../services/keys/rotate.ts';
import { scopeOf } from './scope.ts';

/** DELETE /api/v1/api-keys/{name}/previous: ends a rotation's old secret now; 404 `previous_secret_not_found`. */
export function registerEndPrevious(api: Hono<AppEnv>): void {
  api.delete('/:name/previous', async (c) => {
    const { key, etag } = await endPreviousSecret(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(key);
  });
}
