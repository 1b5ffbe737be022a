import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getWorkspace } from '../../../services/workspaces/list.ts';

/** GET /api/v1/workspaces/{name}: with an ETag; 404 `workspace_not_found` also for one the caller may not see. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { workspace, etag } = await getWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'));
    c.header('ETag', etag);
    return c.json(workspace);
  });
}
