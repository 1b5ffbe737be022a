import { listDeletedConnections } from '../../../services/connections/list-deleted.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/connections/deleted: newest first, with who deleted each, when and why. */
export const deleted = defineRoute({
  method: 'get',
  path: '/deleted',
  id: 'listDeletedConnections',
  summary: 'Deleted connections, newest first',
  handler: async (c) => c.json({ connections: await listDeletedConnections(c.get('deps'), { workspace: listedWorkspace(c) }) }),
});
