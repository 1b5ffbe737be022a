import { listConnections } from '../../../services/connections/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/connections: every connection (a workspace-scoped call: that workspace's) with live usage, never credentials. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listConnections',
  summary: 'List connections (never credentials), with live usage',
  handler: async (c) => c.json({ connections: await listConnections(c.get('deps'), listedWorkspace(c)) }),
});
