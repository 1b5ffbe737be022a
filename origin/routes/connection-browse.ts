import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { canBrowseConnection, connectionGranted } from '../access/reachability.ts';
import { SluiceError, badRequest } from '../errors.ts';
import type { AppEnv } from '../http/context.ts';
import { assertLeastPrivilegeOf } from '../services/connections/least-privilege.ts';
import { connectionForRun } from '../services/connections/lookup.ts';
import { connectionSchema } from '../services/connections/schema.ts';
import { connectionNotGranted } from '../services/run/statement.ts';
import { tableDdl } from '../services/connections/table-ddl.ts';

/**
 * The kept unversioned routes for browsing a connection. They are query-family
 * routes: errors are `{error, ...}`, and an inactive connection gives 403.
 */
export const connectionsPublic = new Hono<AppEnv>();

/**
 * A scoped key needs a `connections` grant of the connection (checked before
 * it is looked up, so an ungranted name reveals nothing) and the connection
 * in its workspace; an administrator needs `connections.read` there. With
 * SLUICE_REQUIRE_LEAST_PRIVILEGE, an over-privileged connection is the
 * server key's only.
 */
const mayBrowse = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.get('caller');
  const name = c.req.param('name')!;
  if (caller.key && !connectionGranted(caller.key.grants, name)) throw connectionNotGranted(name);
  const workspace = caller.administrator || caller.key ? (await connectionForRun(c.get('deps'), name)).row.workspace : '';
  if (!canBrowseConnection(caller, { name, workspace })) {
    throw caller.key ? connectionNotGranted(name) : new SluiceError('forbidden', `Browsing connection "${name}" needs the connections.read capability`);
  }
  await assertLeastPrivilegeOf(c.get('deps'), name, caller.admin);
  await next();
});
connectionsPublic.use('/connections/:name/*', mayBrowse);

/**
 * When the kept schema route was deprecated (RFC 9745: `@` and the Unix time):
 * its successor is GET /api/v1/connections/{name}/schema.
 */
export const SCHEMA_ROUTE_DEPRECATED = '@1795737600';

/**
 * GET /connections/{name}/schema[?database=]: `{tables, truncated}`.
 * Deprecated, with `Deprecation` and a `Link` to its successor, which adds
 * descriptions (administrators only; a scoped key keeps this one). `table_ddl`
 * has no successor under /api/v1 and is not deprecated (docs/reference/connections.md).
 */
connectionsPublic.get('/connections/:name/schema', async (c) => {
  const database = c.req.query('database') || undefined;
  c.header('Deprecation', SCHEMA_ROUTE_DEPRECATED);
  c.header('Link', `</api/v1/connections/${encodeURIComponent(c.req.param('name'))}/schema>; rel="successor-version"`);
  return c.json(await connectionSchema(c.get('deps'), c.req.param('name'), { database }));
});

/** GET /connections/{name}/table_ddl?table=...: `{connection, table, ddl}`. */
connectionsPublic.get('/connections/:name/table_ddl', async (c) => {
  const table = c.req.query('table');
  if (!table) throw badRequest('The table query parameter is required: /connections/{name}/table_ddl?table=<table>');
  return c.json(await tableDdl(c.get('deps'), c.req.param('name'), table));
});
