import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { evictEntry } from '../../../services/cache/entries.ts';

/** DELETE /api/v1/cache/entries/{key}: evicts one, `{evicted: 1}`; 404 `cache_entry_not_found`. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/entries/:key', async (c) => c.json(await evictEntry(c.get('deps'), c.req.param('key'), { workspace: listedWorkspace(c) })));
}
