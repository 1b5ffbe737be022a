import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { updateFields } from '../../../services/exports/fields.ts';
import { updateExport } from '../../../services/exports/update.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/exports/{name}: `If-Match` optional (412 when stale); `{watermark}` rewinds or resets. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateExport',
  summary: 'Change an export; {watermark} rewinds or resets it',
  body: updateFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { export: updated, etag } = await updateExport(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(updated);
  },
});
