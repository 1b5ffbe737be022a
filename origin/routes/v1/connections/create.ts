import { createConnection } from '../../../services/connections/create.ts';
import { createFields } from '../../../services/connections/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';

/** POST /api/v1/connections: 201 with the connection and its ETag; 409 `connection_exists`. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createConnection',
  summary: 'Create a connection',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { connection, etag } = await createConnection(c.get('deps'), c.get('caller'), input, c.get('workspace'), { checkPrivileges: true });
    c.header('ETag', etag);
    c.header('Location', `/api/v1/connections/${encodeURIComponent(connection.name)}`);
    return c.json(connection, 201);
  },
});
