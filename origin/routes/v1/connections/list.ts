import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listConnections } from '../../../services/connections/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/connections: every connection (a workspace-scoped call: that workspace's) with live usage, never credentials. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ connections: await listConnections(c.get('deps'), listedWorkspace(c)) }));
}
