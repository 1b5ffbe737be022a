import { listDestinations } from '../../../services/destinations/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/destinations: every destination (a workspace-scoped call: that workspace's), never credentials. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listDestinations',
  summary: 'List destinations (never credentials)',
  handler: async (c) => c.json({ destinations: await listDestinations(c.get('deps'), listedWorkspace(c)) }),
});
