import { Hono } from 'hono';
import { badRequest } from '../errors.ts';
import type { AppEnv } from '../http/context.ts';
import { connectionSchema } from '../services/connections/schema.ts';
import { tableDdl } from '../services/connections/table-ddl.ts';

/**
 * The kept unversioned routes for browsing a connection. They are query-family
 * routes: errors are `{error, ...}`, and an inactive connection gives 403.
 */
export const connectionsPublic = new Hono<AppEnv>();

/** GET /connections/{name}/schema[?database=]: `{tables, truncated}`. */
connectionsPublic.get('/connections/:name/schema', async (c) => {
  const database = c.req.query('database') || undefined;
  return c.json(await connectionSchema(c.get('deps'), c.req.param('name'), { database, requireActive: true }));
});

/** GET /connections/{name}/table_ddl?table=...: `{connection, table, ddl}`. */
connectionsPublic.get('/connections/:name/table_ddl', async (c) => {
  const table = c.req.query('table');
  if (!table) throw badRequest('The table query parameter is required: /connections/{name}/table_ddl?table=<table>');
  return c.json(await tableDdl(c.get('deps'), c.req.param('name'), table));
});
