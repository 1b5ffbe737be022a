import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listRoles } from '../../../services/roles/get.ts';
import { scopeOf } from '../api-keys/scope.ts';

/** GET /api/v1/roles: every role (of the workspace, on a workspace-scoped call) with `keys_created`. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ roles: await listRoles(c.get('deps'), { workspace: scopeOf(c) }) }));
}
