import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateFields } from '../../../services/connections/fields.ts';
import { updateConnection } from '../../../services/connections/update.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** PATCH /api/v1/connections/{name}: `If-Match` optional; 412 `precondition_failed` when stale. */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const input = await readBody(c, updateFields);
    const { connection, etag } = await updateConnection(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
      checkPrivileges: true,
    });
    c.header('ETag', etag);
    return c.json(connection);
  });
}
