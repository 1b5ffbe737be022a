import { updateFields } from '../../../services/administrators/fields.ts';
import { updateAdministrator } from '../../../services/administrators/update.ts';
import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/administrators/{name} `{role, email, active}`: `If-Match`; 409 `last_owner`. */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateAdministrator',
  summary: 'Change role, email or active (owners only)',
  body: updateFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { administrator, etag } = await updateAdministrator(c.get('deps'), c.get('caller'), c.req.param('name'), input, c.req.header('if-match'));
    c.header('ETag', etag);
    return c.json(administrator);
  },
});
