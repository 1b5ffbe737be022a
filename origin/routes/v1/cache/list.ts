import { listEntries } from '../../../services/cache/entries.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/cache/entries: `{entries}`, soonest expiry first, metadata only (a workspace-scoped call: its workspace's queries' only). */
export const list = defineRoute({
  method: 'get',
  path: '/entries',
  id: 'listCacheEntries',
  summary: 'Cache entries (metadata only), soonest expiry first',
  handler: async (c) => c.json({ entries: await listEntries(c.get('deps'), { workspace: listedWorkspace(c) }) }),
});
