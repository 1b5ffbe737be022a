import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteExport } from '../../../services/exports/delete.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** DELETE /api/v1/exports/{name}: answers the deleted export; 409 `export_running` while it runs. */
export const remove = defineRoute({
  method: 'delete',
  path: '/:name',
  id: 'deleteExport',
  summary: 'Delete an export (409 export_running while it runs)',
  parameters: [IF_MATCH],
  handler: async (c) => {
    const deleted = await deleteExport(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    return c.json(deleted);
  },
});
