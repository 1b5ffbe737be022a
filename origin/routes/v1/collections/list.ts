import { listCollections } from '../../../services/collections/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/collections: `{collections: [{name, queries, keys, roles}], uncollected}`, everything by name. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listCollections',
  summary: 'Collections with their queries and grant holders, and the uncollected queries',
  handler: async (c) => c.json(await listCollections(c.get('deps'), { workspace: listedWorkspace(c) })),
});
