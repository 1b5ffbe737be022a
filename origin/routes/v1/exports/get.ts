import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getExport } from '../../../services/exports/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/exports/{name} with its ETag. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { export: found, etag } = await getExport(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(found);
  });
}
