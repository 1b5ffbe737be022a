import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteQuery } from '../../../services/queries/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/queries/{name}: every version goes (run history stays); `If-Match`. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteQuery',
  summary: 'Delete every version of a query',
  parameters: [IF_MATCH],
  handler: async (c) =>
    c.json(await deleteQuery(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c), ifMatch: c.req.header('if-match') })),
});
