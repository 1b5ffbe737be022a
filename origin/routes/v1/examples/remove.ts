import { removeExamples } from '../../../services/examples/remove.ts';
import { defineRoute } from '../contract.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/** DELETE /api/v1/examples: `{removed, keys_still_granted}`. */
export const remove = defineRoute({
  method: 'delete',
  path: '/',
  id: 'removeExamples',
  summary: 'Remove every example object; keys_still_granted names keys of your own granting one',
  access: 'examples.write',
  handler: async (c) => {
    assertDefaultWorkspace(c);
    return c.json(await removeExamples(c.get('deps'), c.get('caller')));
  },
});
