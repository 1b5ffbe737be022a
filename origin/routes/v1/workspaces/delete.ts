import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteWorkspace } from '../../../services/workspaces/delete.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/workspaces/{name}: owners only, empty only (409 `workspace_not_empty`), never `default` (409 `workspace_protected`). */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteWorkspace',
  summary: 'Delete an empty workspace other than default (owners only)',
  access: 'workspaces.write',
  parameters: [IF_MATCH],
  handler: async (c) => c.json(await deleteWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.header('if-match'))),
});
