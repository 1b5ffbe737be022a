import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listWorkspaces } from '../../../services/workspaces/list.ts';

/** GET /api/v1/workspaces: all for server-wide owners, admins and auditors; the caller's own otherwise. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ workspaces: await listWorkspaces(c.get('deps'), c.get('caller')) }));
}
