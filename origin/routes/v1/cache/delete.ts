import { evictEntry } from '../../../services/cache/entries.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/cache/entries/{key}: evicts one, `{evicted: 1}`; 404 `cache_entry_not_found`. */
export const evict = defineRoute({
  method: 'delete',
  path: '/entries/:key',
  id: 'evictCacheEntry',
  summary: 'Evict one entry',
  handler: async (c) => c.json(await evictEntry(c.get('deps'), c.req.param('key'), { workspace: listedWorkspace(c) })),
});
