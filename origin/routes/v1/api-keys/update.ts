import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { updateKeyFields } from '../../../services/keys/fields.ts';
import { updateKey } from '../../../services/keys/update.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** PATCH /api/v1/api-keys/{name}: absent fields stay, null resets; `If-Match` optional (412 when stale). */
export const update = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'updateApiKey',
  summary: 'Change a key (null resets a field; active: false revokes it)',
  body: updateKeyFields,
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { key, etag } = await updateKey(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(key);
  },
});
