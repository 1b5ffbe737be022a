import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerForget } from './forget.ts';
import { registerList } from './list.ts';

/** `/api/v1/history`: run history across queries (ad-hoc runs have query null). */
export const historyApi = new Hono<AppEnv>();
historyApi.use(requireCapability('history', { 'DELETE /': 'history.forget' }));
registerList(historyApi);
registerForget(historyApi);
