import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateRoleFields } from '../../../services/roles/fields.ts';
import { updateRole } from '../../../services/roles/update.ts';
import { scopeOf } from '../api-keys/scope.ts';

/** PATCH /api/v1/roles/{name}: absent fields stay, null resets; keys made from it are untouched. `If-Match` optional. */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const input = await readBody(c, updateRoleFields);
    const { role, etag } = await updateRole(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(role);
  });
}
