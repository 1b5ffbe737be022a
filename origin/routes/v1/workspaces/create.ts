import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createWorkspace } from '../../../services/workspaces/create.ts';
import { createFields } from '../../../services/workspaces/fields.ts';
import { assertCapability } from '../require-capability.ts';

/** POST /api/v1/workspaces `{name, description}`: owners only; 201; 409 `workspace_exists`. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'workspaces.write');
    const input = await readBody(c, createFields);
    const { workspace, etag } = await createWorkspace(c.get('deps'), c.get('caller'), input);
    c.header('ETag', etag);
    c.header('Location', `/api/v1/workspaces/${encodeURIComponent(workspace.name)}`);
    return c.json(workspace, 201);
  });
}
