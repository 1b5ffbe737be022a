import { listDatabases } from '../../../services/connections/databases.ts';
import { probeFields } from '../../../services/connections/fields.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** POST /api/v1/connections/databases: `{name}` or unsaved fields; `{databases: [...]}`. */
export const databases = defineRoute({
  method: 'post',
  path: '/databases',
  id: 'listConnectionDatabases',
  summary: 'Databases on the server of a saved connection or unsaved fields',
  body: probeFields,
  handler: async (c, input) => c.json(await listDatabases(c.get('deps'), c.get('caller'), input, { workspace: listedWorkspace(c) })),
});
