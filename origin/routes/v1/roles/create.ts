import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createRole } from '../../../services/roles/create.ts';
import { createRoleFields } from '../../../services/roles/fields.ts';
import { scopeOf } from '../api-keys/scope.ts';

/** POST /api/v1/roles: 201 with the role and its ETag; 409 `role_exists`. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createRoleFields);
    const { role, etag } = await createRole(c.get('deps'), c.get('caller'), input, { workspace: scopeOf(c) });
    c.header('ETag', etag);
    c.header('Location', `/api/v1/roles/${encodeURIComponent(role.name)}`);
    return c.json(role, 201);
  });
}
