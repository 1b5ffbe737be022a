import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { listEntries } from '../../../services/cache/entries.ts';

/** GET /api/v1/cache/entries: `{entries}`, soonest expiry first, metadata only (a workspace-scoped call: its workspace's queries' only). */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/entries', async (c) => c.json({ entries: await listEntries(c.get('deps'), { workspace: listedWorkspace(c) }) }));
}
