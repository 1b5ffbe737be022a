import { listRoles } from '../../../services/roles/get.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/roles: every role (of the workspace, on a workspace-scoped call) with `keys_created`. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listRoles',
  summary: 'List roles with keys_created',
  handler: async (c) => c.json({ roles: await listRoles(c.get('deps'), { workspace: scopeOf(c) }) }),
});
