import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { listCollections } from '../../../services/collections/list.ts';

/** GET /api/v1/collections: `{collections: [{name, queries, keys, roles}], uncollected}`, everything by name. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json(await listCollections(c.get('deps'), { workspace: listedWorkspace(c) })));
}
