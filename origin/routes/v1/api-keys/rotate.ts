import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { rotateFields } from '../../../services/keys/fields.ts';
import { rotateKey } from '../../../services/keys/rotate.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** POST /api/v1/api-keys/{name}/rotate `{grace_minutes}` (optional body): the key with its new `secret`, shown once. */
export const rotate = defineRoute({
  method: 'post',
  path: '/:name/rotate',
  id: 'rotateApiKey',
  summary: 'New secret (shown once); the old one lasts grace_minutes',
  body: rotateFields,
  emptyBody: 'optional',
  parameters: [IF_MATCH],
  handler: async (c, input) => {
    const { key, etag } = await rotateKey(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: scopeOf(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('Cache-Control', 'no-store');
    c.header('ETag', etag);
    return c.json(key);
  },
});
