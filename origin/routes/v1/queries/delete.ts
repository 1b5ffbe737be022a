import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteQuery } from '../../../services/queries/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** DELETE /api/v1/queries/{name}: every version goes (run history stays); `If-Match`. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    return c.json(await deleteQuery(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    }));
  });
}
