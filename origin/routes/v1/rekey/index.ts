import { rekeyFields, rekeySecrets } from '../../../secrets/rekey.ts';
import { defineResource, defineRoute } from '../contract.ts';

/**
 * `POST /api/v1/settings/rekey` (`secrets.rotate`: owners): `{check: true}`
 * reports; an empty body or `{}` re-encrypts every stored password under the
 * first key of SLUICE_SECRET_KEY (docs/reference/secrets.md).
 */
const rekey = defineRoute({
  method: 'post',
  path: '/',
  id: 'rekeySecrets',
  summary: 'Report ({check: true}) or re-encrypt every stored password under the first key',
  access: 'secrets.rotate',
  body: rekeyFields,
  emptyBody: 'optional',
  handler: async (c, input) => c.json(await rekeySecrets(c.get('deps'), c.get('caller'), input)),
});

export const rekeyApi = defineResource({
  base: '/api/v1/settings/rekey',
  tag: { name: 'Management: secrets', description: 'Stored passwords under SLUICE_SECRET_KEY' },
  routes: [rekey],
});
