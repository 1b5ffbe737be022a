import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getDestination } from '../../../services/destinations/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/destinations/{name}: the access key id included, the secret masked, with an ETag. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { destination, etag } = await getDestination(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(destination);
  });
}
