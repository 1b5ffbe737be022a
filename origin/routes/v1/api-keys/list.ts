import { listKeys } from '../../../services/keys/get.ts';
import { defineRoute } from '../contract.ts';
import { scopeOf } from './scope.ts';

/** GET /api/v1/api-keys: every key (of the workspace, on a workspace-scoped call), never a secret. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listApiKeys',
  summary: 'List API keys (never secrets), with effective limits and usage',
  handler: async (c) => c.json({ api_keys: await listKeys(c.get('deps'), { workspace: scopeOf(c) }) }),
});
