import { listAdministrators } from '../../../services/administrators/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/administrators: every administrator with their token counts. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listAdministrators',
  summary: 'List administrators with their token counts',
  handler: async (c) => c.json({ administrators: await listAdministrators(c.get('deps'), { workspace: listedWorkspace(c) }) }),
});
