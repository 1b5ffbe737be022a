import { probeFields } from '../../../services/connections/fields.ts';
import { testConnection } from '../../../services/connections/test.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** POST /api/v1/connections/test: `{name}` or unsaved fields; `{ok, duration_ms, warnings}` or 502 `connection_failed`. */
export const probe = defineRoute({
  method: 'post',
  path: '/test',
  id: 'testConnection',
  summary: 'Test a saved connection ({name}) or unsaved fields',
  body: probeFields,
  handler: async (c, input) => c.json(await testConnection(c.get('deps'), c.get('caller'), input, { workspace: listedWorkspace(c) })),
});
