import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listDestinations } from '../../../services/destinations/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/destinations: every destination (a workspace-scoped call: that workspace's), never credentials. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ destinations: await listDestinations(c.get('deps'), listedWorkspace(c)) }));
}
