import { listWorkspaces } from '../../../services/workspaces/list.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/workspaces: all for server-wide owners, admins and auditors; the caller's own otherwise. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listWorkspaces',
  summary: 'Workspaces the caller may see',
  access: 'administrator',
  handler: async (c) => c.json({ workspaces: await listWorkspaces(c.get('deps'), c.get('caller')) }),
});
