import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { probeFields } from '../../../services/connections/fields.ts';
import { testConnection } from '../../../services/connections/test.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** POST /api/v1/connections/test: `{name}` or unsaved fields; `{ok, duration_ms, warnings}` or 502 `connection_failed`. */
export function registerTest(api: Hono<AppEnv>): void {
  api.post('/test', async (c) => c.json(await testConnection(c.get('deps'), c.get('caller'), await readBody(c, probeFields), { workspace: listedWorkspace(c) })));
}
