import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateFields } from '../../../services/administrators/fields.ts';
import { updateAdministrator } from '../../../services/administrators/update.ts';
import { assertCapability } from '../require-capability.ts';

/** PATCH /api/v1/administrators/{name} `{role, email, active}`: `If-Match`; 409 `last_owner`. */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'administrators.write');
    const input = await readBody(c, updateFields);
    const { administrator, etag } = await updateAdministrator(c.get('deps'), c.get('caller'), c.req.param('name'), input, c.req.header('if-match'));
    c.header('ETag', etag);
    return c.json(administrator);
  });
}
