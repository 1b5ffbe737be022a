import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteDestination } from '../../../services/destinations/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** DELETE /api/v1/destinations/{name}: answers what was removed; 409 `destination_in_use` while an export delivers to it. `If-Match` optional. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) =>
    c.json(await deleteDestination(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c), ifMatch: c.req.header('if-match') })),
  );
}
