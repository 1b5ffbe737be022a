import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getQuery } from '../../../services/queries/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/queries/{name}: every version with its SQL, newest first, and an ETag; 404 `query_not_found`. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { query, etag } = await getQuery(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(query);
  });
}
