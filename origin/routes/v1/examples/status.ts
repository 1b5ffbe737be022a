import { examplesStatus } from '../../../services/examples/status.ts';
import { defineRoute } from '../contract.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/** GET /api/v1/examples: `{loaded, partial, connection, queries, roles, keys, collections}`. */
export const status = defineRoute({
  method: 'get',
  path: '/',
  id: 'getExamples',
  summary: 'The examples tour: loaded, partial, and the example objects by name',
  handler: async (c) => {
    assertDefaultWorkspace(c);
    return c.json(await examplesStatus(c.get('deps').store.db));
  },
});
