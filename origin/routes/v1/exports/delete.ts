import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteExport } from '../../../services/exports/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** DELETE /api/v1/exports/{name}: answers the deleted export; 409 `export_running` while it runs. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    const deleted = await deleteExport(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    return c.json(deleted);
  });
}
