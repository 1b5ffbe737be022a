import { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { rekeyFields, rekeySecrets } from '../../../secrets/rekey.ts';
import { requireCapability } from '../require-capability.ts';

/**
 * `POST /api/v1/settings/rekey` (`secrets.rotate`: owners): `{check: true}`
 * reports; an empty body or `{}` re-encrypts every stored password under the
 * first key of SLUICE_SECRET_KEY (docs/reference/secrets.md).
 */
export const rekeyApi = new Hono<AppEnv>();
rekeyApi.use(requireCapability('settings', { 'POST /': 'secrets.rotate' }));
rekeyApi.post('/', async (c) => {
  const input = await readBody(c, rekeyFields, { optional: true });
  return c.json(await rekeySecrets(c.get('deps'), c.get('caller'), input));
});
