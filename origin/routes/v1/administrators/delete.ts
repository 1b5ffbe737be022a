import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteAdministrator } from '../../../services/administrators/delete.ts';
import { assertCapability } from '../require-capability.ts';

/** DELETE /api/v1/administrators/{name}: with their tokens and memberships; `If-Match`; 409 `last_owner`. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'administrators.write');
    return c.json(await deleteAdministrator(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.header('if-match')));
  });
}
