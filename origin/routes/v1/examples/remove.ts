import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { removeExamples } from '../../../services/examples/remove.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/** DELETE /api/v1/examples: `{removed, keys_still_granted}`. */
export function registerRemove(api: Hono<AppEnv>): void {
  api.delete('/', async (c) => {
    assertDefaultWorkspace(c);
    return c.json(await removeExamples(c.get('deps'), c.get('caller')));
  });
}
