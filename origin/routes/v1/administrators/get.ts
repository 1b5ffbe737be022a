import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { getAdministrator } from '../../../services/administrators/list.ts';
import { assertCapability } from '../require-capability.ts';

/** GET /api/v1/administrators/{name}: with an ETag; 404 `admin_not_found`. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'administrators.read');
    const { administrator, etag } = await getAdministrator(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(administrator);
  });
}
