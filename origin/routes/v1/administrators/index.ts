import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerTokens } from './tokens.ts';
import { registerUpdate } from './update.ts';

/**
 * `/api/v1/administrators`: reading needs `administrators.read`, changes
 * `administrators.write` (server-wide owners); everyone manages their own
 * tokens. Each route checks its own capability (tokens differ).
 */
export const administratorsApi = new Hono<AppEnv>();
registerList(administratorsApi);
registerCreate(administratorsApi);
registerGet(administratorsApi);
registerUpdate(administratorsApi);
registerDelete(administratorsApi);
registerTokens(administratorsApi);
