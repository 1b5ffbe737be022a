import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getConnection } from '../../../services/connections/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/connections/{name}: options and user included, password masked, with an ETag. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { connection, etag } = await getConnection(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(connection);
  });
}
