import { managedNames } from '../../../services/config/managed.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/config/managed: `{managed: {<kind>: [names]}, locked}` (a workspace-scoped call: that workspace's). */
export const managed = defineRoute({
  method: 'get',
  path: '/managed',
  id: 'listManagedObjects',
  summary: 'Managed objects by kind, and whether the server is locked to its configuration',
  handler: async (c) => {
    const deps = c.get('deps');
    return c.json({ managed: await managedNames(deps.store.db, listedWorkspace(c)), locked: deps.env.SLUICE_CONFIG_LOCKED });
  },
});
