import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getRole } from '../../../services/roles/get.ts';
import { scopeOf } from '../api-keys/scope.ts';

/** GET /api/v1/roles/{name}: the role with its ETag; 404 `role_not_found`. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/:name', async (c) => {
    const { role, etag } = await getRole(c.get('deps'), c.req.param('name'), { workspace: scopeOf(c) });
    c.header('ETag', etag);
    return c.json(role);
  });
}
