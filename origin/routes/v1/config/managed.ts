import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { managedNames } from '../../../services/config/managed.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/config/managed: `{managed: {<kind>: [names]}, locked}` (a workspace-scoped call: that workspace's). */
export function registerManaged(api: Hono<AppEnv>): void {
  api.get('/managed', async (c) => {
    const deps = c.get('deps');
    return c.json({ managed: await managedNames(deps.store.db, listedWorkspace(c)), locked: deps.env.SLUICE_CONFIG_LOCKED });
  });
}
