import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { probeFields, savedProbeFields } from '../../../services/destinations/fields.ts';
import { testDestination } from '../../../services/destinations/test.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * POST /api/v1/destinations/test (unsaved fields, or `{name}`) and
 * POST /api/v1/destinations/{name}/test: a probe object written and removed;
 * `{ok, duration_ms}` or 502 `connection_failed`.
 */
export function registerTest(api: Hono<AppEnv>): void {
  api.post('/test', async (c) => c.json(await testDestination(c.get('deps'), c.get('caller'), await readBody(c, probeFields), { workspace: listedWorkspace(c) })));
  api.post('/:name/test', async (c) => {
    await readBody(c, savedProbeFields, { optional: true });
    return c.json(await testDestination(c.get('deps'), c.get('caller'), { name: c.req.param('name') }, { workspace: listedWorkspace(c) }));
  });
}
