import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { examplesStatus } from '../../../services/examples/status.ts';
import { assertDefaultWorkspace } from './workspace.ts';

/** GET /api/v1/examples: `{loaded, partial, connection, queries, roles, keys, collections}`. */
export function registerStatus(api: Hono<AppEnv>): void {
  api.get('/', async (c) => {
    assertDefaultWorkspace(c);
    return c.json(await examplesStatus(c.get('deps').store.db));
  });
}
