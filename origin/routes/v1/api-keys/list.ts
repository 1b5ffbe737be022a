import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listKeys } from '../../../services/keys/get.ts';
import { scopeOf } from './scope.ts';

/** GET /api/v1/api-keys: every key (of the workspace, on a workspace-scoped call), never a secret. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ api_keys: await listKeys(c.get('deps'), { workspace: scopeOf(c) }) }));
}
