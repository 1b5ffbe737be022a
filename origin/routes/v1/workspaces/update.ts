import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateFields } from '../../../services/workspaces/fields.ts';
import { updateWorkspace } from '../../../services/workspaces/update.ts';
import { assertCapability } from '../require-capability.ts';

/** PATCH /api/v1/workspaces/{name} `{description}`: owners only; `If-Match`. */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'workspaces.write');
    const input = await readBody(c, updateFields);
    const { workspace, etag } = await updateWorkspace(c.get('deps'), c.get('caller'), c.req.param('name'), input, c.req.header('if-match'));
    c.header('ETag', etag);
    return c.json(workspace);
  });
}
