import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { endPreviousSecret } from '../../../services/keys/rotate.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** DELETE /api/v1/api-keys/{name}/previous: ends a rotation's old secret now; 404 `previous_secret_not_found`. */
export const endPrevious = defineRoute({
  method: 'delete',
  path: '/:name/previous',
  id: 'endPreviousApiKeySecret',
  summary: "End a rotation's previous secret now",
  parameters: [IF_MATCH],
  handler: async (c) => {
    const { key, etag } = await endPreviousSecret(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(key);
  },
});
