import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { listDatabases } from '../../../services/connections/databases.ts';
import { probeFields } from '../../../services/connections/fields.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** POST /api/v1/connections/databases: `{name}` or unsaved fields; `{databases: [...]}`. */
export function registerDatabases(api: Hono<AppEnv>): void {
  api.post('/databases', async (c) => c.json(await listDatabases(c.get('deps'), c.get('caller'), await readBody(c, probeFields), { workspace: listedWorkspace(c) })));
}
