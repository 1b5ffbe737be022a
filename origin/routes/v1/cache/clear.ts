import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { evictAll } from '../../../services/cache/entries.ts';

/** DELETE /api/v1/cache/entries: evicts every entry (a workspace-scoped call: every one of its workspace's queries), `{evicted: n}`. */
export function registerClear(api: Hono<AppEnv>): void {
  api.delete('/entries', async (c) => c.json(await evictAll(c.get('deps'), { workspace: listedWorkspace(c) })));
}
