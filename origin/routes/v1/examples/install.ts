import { installExamples } from '../../../services/examples/install.ts';
import { defineRoute } from '../contract.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/**
 * POST /api/v1/examples (no body): installs what is missing of the tour and
 * answers the status with `key_secrets`, each key's secret shown this once,
 * so the answer is never stored by a cache. 409 `examples_conflict`.
 */
export const install = defineRoute({
  method: 'post',
  path: '/',
  id: 'installExamples',
  summary: 'Install what is missing of the tour; key_secrets shows each new key secret once',
  access: 'examples.write',
  handler: async (c) => {
    assertDefaultWorkspace(c);
    const result = await installExamples(c.get('deps'), c.get('caller'));
    c.header('Cache-Control', 'no-store');
    return c.json(result);
  },
});
