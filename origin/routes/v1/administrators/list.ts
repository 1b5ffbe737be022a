import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { listAdministrators } from '../../../services/administrators/list.ts';
import { assertCapability } from '../require-capability.ts';

/** GET /api/v1/administrators: every administrator with their token counts. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'administrators.read');
    return c.json({ administrators: await listAdministrators(c.get('deps'), { workspace: listedWorkspace(c) }) });
  });
}
