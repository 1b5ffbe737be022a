import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { quotas } from '../../../services/usage/quotas.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { requireCapability } from '../require-capability.ts';

/** `/api/v1/usage`: calls and rows per caller (`usage.read`). */
export const usageApi = new Hono<AppEnv>();
usageApi.use(requireCapability('usage'));

/** GET /api/v1/usage/quotas: every caller's calls and rows for the current day and month, with each key's quota and what is left of it. */
usageApi.get('/quotas', async (c) => c.json(await quotas(c.get('deps'), { workspace: scopeOf(c) })));
