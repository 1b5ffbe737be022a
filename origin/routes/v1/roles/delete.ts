import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteRole } from '../../../services/roles/delete.ts';
import { scopeOf } from '../api-keys/scope.ts';

/** DELETE /api/v1/roles/{name}: keys made from it keep their grants; answers what was removed. `If-Match` optional. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    return c.json(await deleteRole(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: scopeOf(c), ifMatch: c.req.header('if-match') }));
  });
}
