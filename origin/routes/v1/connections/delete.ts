import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { removeFields } from '../../../services/connections/fields.ts';
import { deleteConnection } from '../../../services/connections/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** DELETE /api/v1/connections/{name} with `{reason}` (else 400 `reason_required`); answers the deleted-list entry. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    const input = await readBody(c, removeFields, { optional: true });
    const deleted = await deleteConnection(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    return c.json(deleted);
  });
}
