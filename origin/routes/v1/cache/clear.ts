import { evictAll } from '../../../services/cache/entries.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/cache/entries: evicts every entry (a workspace-scoped call: every one of its workspace's queries), `{evicted: n}`. */
export const clear = defineRoute({
  method: 'delete',
  path: '/entries',
  id: 'evictCacheEntries',
  summary: 'Evict every entry',
  handler: async (c) => c.json(await evictAll(c.get('deps'), { workspace: listedWorkspace(c) })),
});
