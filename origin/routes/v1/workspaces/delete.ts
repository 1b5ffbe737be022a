import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteWorkspace } from '../../../services/workspaces/delete.ts';
import { assertCapability } from '../require-capability.ts';

/** DELETE /api/v1/workspaces/{name}: owners only, empty only (409 `workspace_not_empty`), never `default` (409 `workspace_protected`). */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'workspaces.write');
    return c.json(await deleteWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.header('if-match')));
  });
}
