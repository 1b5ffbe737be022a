import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { installExamples } from '../../../services/examples/install.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/**
 * POST /api/v1/examples (no body): installs what is missing of the tour and
 * answers the status with `key_secrets`, each key's secret shown this once,
 * so the answer is never stored by a cache. 409 `examples_conflict`.
 */
export function registerInstall(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    assertDefaultWorkspace(c);
    const result = await installExamples(c.get('deps'), c.get('caller'));
    c.header('Cache-Control', 'no-store');
    return c.json(result);
  });
}
