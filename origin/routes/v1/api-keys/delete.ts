import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteKey } from '../../../services/keys/delete.ts';
import { scopeOf } from './scope.ts';

/** DELETE /api/v1/api-keys/{name}: revokes and removes it; answers what was removed. `If-Match` optional. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    return c.json(await deleteKey(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: scopeOf(c), ifMatch: c.req.header('if-match') }));
  });
}
