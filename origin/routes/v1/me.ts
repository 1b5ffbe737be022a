import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { describeCaller } from '../../services/administrators/me.ts';
import { assertAdministrator } from './require-capability.ts';

/** `GET /api/v1/me`: any administrator, in the workspace the call acts in. */
export const meApi = new Hono<AppEnv>();
meApi.get('/', async (c) => {
  assertAdministrator(c.get('caller'));
  return c.json(await describeCaller(c.get('deps'), c.get('caller'), c.get('workspace')));
});
