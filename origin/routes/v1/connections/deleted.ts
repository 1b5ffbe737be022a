import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { listDeletedConnections } from '../../../services/connections/list-deleted.ts';

/** GET /api/v1/connections/deleted: newest first, with who deleted each, when and why. */
export function registerDeleted(api: Hono<AppEnv>): void {
  api.get('/deleted', async (c) => c.json({ connections: await listDeletedConnections(c.get('deps'), { workspace: listedWorkspace(c) }) }));
}
