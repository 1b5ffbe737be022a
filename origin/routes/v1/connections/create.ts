import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createConnection } from '../../../services/connections/create.ts';
import { createFields } from '../../../services/connections/fields.ts';

/** POST /api/v1/connections: 201 with the connection and its ETag; 409 `connection_exists`. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createFields);
    const { connection, etag } = await createConnection(c.get('deps'), c.get('caller'), input, c.get('workspace'), { checkPrivileges: true });
    c.header('ETag', etag);
    c.header('Location', `/api/v1/connections/${encodeURIComponent(connection.name)}`);
    return c.json(connection, 201);
  });
}
