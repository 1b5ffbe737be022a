import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerClear } from './clear.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';

/** `/api/v1/cache`: the saved-query response cache. Evictions are not audited (spec). */
export const cacheApi = new Hono<AppEnv>();
cacheApi.use(requireCapability('cache'));
registerList(cacheApi);
registerClear(cacheApi);
registerGet(cacheApi);
registerDelete(cacheApi);
