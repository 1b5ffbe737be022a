import { quotas } from '../../../services/usage/quotas.ts';
import { scopeOf } from '../api-keys/scope.ts';
import { defineResource, defineRoute } from '../contract.ts';

/** GET /api/v1/usage/quotas: every caller's calls and rows for the current day and month, with each key's quota and what is left of it. */
const quotaUsage = defineRoute({
  method: 'get',
  path: '/quotas',
  id: 'getQuotaUsage',
  summary: "Every caller's calls and rows for the current day and month, with each key's quota",
  handler: async (c) => c.json(await quotas(c.get('deps'), { workspace: scopeOf(c) })),
});

/** `/api/v1/usage`: calls and rows per caller (`usage.read`). */
export const usageApi = defineResource({
  base: '/api/v1/usage',
  area: 'usage',
  tag: { name: 'Management: usage', description: "Every caller's calls and rows against quotas" },
  routes: [quotaUsage],
});
