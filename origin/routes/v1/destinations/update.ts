import { updateFields } from '../../../services/destinations/fields.ts';
import { updateDestination } from '../../../services/destinations/update.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/destinations/{name}: `If-Match` optional; 412 `precondition_failed` when stale. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateDestination',
  summary: 'Change a destination',
  body: updateFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { destination, etag } = await updateDestination(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(destination);
  },
});
