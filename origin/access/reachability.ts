import { and, eq, isNotNull } from 'drizzle-orm';
import type { Env } from '../env.ts';
import type { AppDeps } from '../deps.ts';
import type { Caller, CallerAdministrator } from './caller.ts';
import { type QueryRow, type QueryVersionRow, connections, queries, queryVersions } from '../store/schema/index.ts';
import { type GrantTarget, connectionGranted, keyReaches, keyUsesConnection } from '../../shared/access/reach.ts';
import { formatRate } from '../../shared/access/rate.ts';
import type { Budget } from '../../shared/access/grants.ts';
import { type AdminRole, type Capability, roleHas } from './capabilities.ts';

/**
 * Which saved queries a caller reaches, and what it may do with them and with
 * ad-hoc SQL: the one place the run path, `GET /catalog` and
 * `GET /openapi.json` decide it (spec, Authentication 5 and 6), so the three
 * can never disagree.
 *
 * - The admin key (and anyone on an open server) reaches everything.
 * - A named administrator reaches a query when their role has `data.run`:
 *   the server-wide role, or when that is null their membership role in the
 *   query's workspace. Drafts also need `queries.write`.
 * - A scoped key reaches a query of its own workspace through a
 *   `connections` grant of the connection it runs on (for listings: the
 *   published version's default connection), a `queries` grant (a name, an
 *   object entry, or `*`), or a `collections` grant of the collection the
 *   query is in now.
 * - Workspace boundaries (docs/reference/workspaces.md): only the admin key
 *   and server-wide roles run a query on a connection of another workspace
 *   than the query's; keys and workspace members never do.
 * - Anyone else (the anonymous caller of a public endpoint) reaches nothing.
 */

/** What reachability reads of a caller. `via` is optional: the run path passes the whole caller, tests less. */
export type AccessCaller = Pick<Caller, 'admin'> & Partial<Pick<Caller, 'via' | 'key' | 'administrator'>>;

/**
 * What reachability reads of a query: its name (`queries` grants), collection
 * (`collections` grants), workspace (a key's own, administrators' memberships)
 * and the connection it runs on (`connections` grants; null when it has no
 * default and none was asked) with that connection's workspace (null when no
 * connection of that name is saved).
 */
export type AccessTarget = GrantTarget;

/** The role an administrator acts with in a workspace: the server-wide one, else their membership there. */
const roleIn = (administrator: CallerAdministrator, workspace: string): AdminRole | null =>
  administrator.role ?? administrator.memberships[workspace] ?? null;

const administratorMay = (caller: AccessCaller, workspace: string, capability: Capability) =>
  caller.administrator !== undefined && roleHas(roleIn(caller.administrator, workspace), capability);

/** A query run on a connection of another workspace: only server-wide roles may (the admin key never gets here). */
const crossesWorkspaces = (caller: AccessCaller, target: AccessTarget): boolean =>
  target.connectionWorkspace !== null && target.connectionWorkspace !== target.workspace && (caller.administrator?.role ?? null) === null;

/** Ad-hoc SQL asks it here, with the rest of reachability. */
export { connectionGranted };

/** May the caller run this query (on `target.connectionName`) at all? Which versions is `canRunDraft`'s part. */
export function canReach(caller: AccessCaller, target: AccessTarget): boolean {
  if (caller.admin) return true;
  if (caller.administrator) return administratorMay(caller, target.workspace, 'data.run') && !crossesWorkspaces(caller, target);
  if (caller.key) return keyReaches(caller.key, target);
  return false;
}

/** Drafts: only the admin key, and administrators whose role may edit queries (spec, "Query versions"). */
export function canRunDraft(caller: AccessCaller, target: AccessTarget): boolean {
  if (caller.admin) return true;
  return canReach(caller, target) && administratorMay(caller, target.workspace, 'queries.write');
}

/**
 * May the caller run a write through this query on `target.connectionName`?
 * Never wider than `SLUICE_ALLOW_WRITES`. A key writes only through a
 * `connections` grant of that connection when its `allow_writes` is set, or a
 * `queries` object entry `{name, allow_writes: true}`; `*` and collections
 * never carry writes. Whether the SQL is a write the guard allows is decided
 * at run time.
 */
export function canWrite(env: Pick<Env, 'SLUICE_ALLOW_WRITES'>, caller: AccessCaller, target: AccessTarget): boolean {
  if (!env.SLUICE_ALLOW_WRITES || !canReach(caller, target)) return false;
  if (!caller.key) return true;
  const grants = caller.key.grants;
  const entry = grants.queries.some((e) => typeof e !== 'string' && e.name === target.name && e.allow_writes);
  return entry || (grants.allow_writes && connectionGranted(grants, target.connectionName));
}

/** A connection as ad-hoc SQL and schema browsing see it. */
export interface ConnectionTarget {
  name: string;
  workspace: string;
}

/**
 * Ad-hoc SQL on a connection: a key needs a `connections` grant of it and the
 * connection in the key's workspace; `queries` and `collections` grants never
 * allow it.
 */
export function canUseConnection(caller: AccessCaller, connection: ConnectionTarget): boolean {
  if (caller.admin) return true;
  if (caller.administrator) return administratorMay(caller, connection.workspace, 'data.run');
  if (caller.key) return keyUsesConnection(caller.key, connection);
  return false;
}

/** Schema browsing (`/connections/{name}/schema`, `/table_ddl`): a key's `connections` grant (in its workspace), an administrator's `connections.read`. */
export function canBrowseConnection(caller: AccessCaller, connection: ConnectionTarget): boolean {
  if (caller.admin) return true;
  if (caller.administrator) return administratorMay(caller, connection.workspace, 'connections.read');
  if (caller.key) return keyUsesConnection(caller.key, connection);
  return false;
}

/** Ad-hoc writes on a connection: a granted connection and the key's `allow_writes`, never wider than the server. */
export function canWriteConnection(env: Pick<Env, 'SLUICE_ALLOW_WRITES'>, caller: AccessCaller, connection: ConnectionTarget): boolean {
  if (!env.SLUICE_ALLOW_WRITES || !canUseConnection(caller, connection)) return false;
  return caller.key ? caller.key.grants.allow_writes : true;
}

/** A query the caller reaches, with its published version and the workspace of that version's default connection. */
export interface ReachableQuery {
  query: QueryRow;
  version: QueryVersionRow;
  connectionWorkspace: string | null;
}

/** Code-point order, the same on every store whatever its collation. */
const byName = (a: ReachableQuery, b: ReachableQuery) => (a.query.name < b.query.name ? -1 : a.query.name > b.query.name ? 1 : 0);

/** The target of a query as listings see it: its published version's default connection, in `connectionWorkspace` (null: none saved). */
export const publishedTarget = (
  query: QueryRow,
  version: Pick<QueryVersionRow, 'connectionName'> | null,
  connectionWorkspace: string | null,
): AccessTarget => ({
  name: query.name,
  collection: query.collection,
  workspace: query.workspace,
  connectionName: version?.connectionName ?? null,
  connectionWorkspace: version?.connectionName ? connectionWorkspace : null,
});

/** Callers that reach nothing whatever the store holds (no query read needed). */
function reachesNothing(caller: AccessCaller): boolean {
  if (caller.admin || caller.administrator) return false;
  if (!caller.key) return true;
  const { connections, queries: named, collections } = caller.key.grants;
  return connections.length === 0 && named.length === 0 && collections.length === 0;
}

/** Every published query the caller reaches, with its published version, by name (one store read). Unpublished queries are never listed. */
export async function reachableQueries(deps: Pick<AppDeps, 'store'>, caller: AccessCaller): Promise<ReachableQuery[]> {
  if (reachesNothing(caller)) return [];
  const rows = await deps.store.db
    .select({ query: queries, version: queryVersions, connectionWorkspace: connections.workspace })
    .from(queries)
    .innerJoin(queryVersions, and(eq(queryVersions.queryId, queries.id), eq(queryVersions.version, queries.publishedVersion)))
    .leftJoin(connections, eq(connections.name, queryVersions.connectionName))
    .where(isNotNull(queries.publishedVersion));
  return rows.filter((row) => canReach(caller, publishedTarget(row.query, row.version, row.connectionWorkspace))).sort(byName);
}

/** The `caller` object of `/catalog`: what this caller may do, and the limits it runs under. */
export interface CallerAccess {
  name: string;
  admin: boolean;
  /** Writes allowed to this caller: the key's own setting narrowed by the server's. */
  allow_writes: boolean;
  /** Leading write keywords the caller is limited to; null means every write. */
  allowed_write_ops: string[] | null;
  /** The key's own limit as `N/period`; null means none. */
  rate_limit: string | null;
  /** `SLUICE_RATE_LIMIT` as `N/period`; null when unset. */
  server_rate_limit: string | null;
  /** The key's budget of database work (docs/reference/budgets.md); null means none. */
  budget: Budget | null;
}

/**
 * The caller's write settings and rate limits. An administrator's
 * `allow_writes` says whether their role runs data anywhere (server-wide, or
 * in one of their workspaces); `can_write` per query is the exact answer.
 */
export function callerAccess(env: Pick<Env, 'SLUICE_ALLOW_WRITES' | 'SLUICE_RATE_LIMIT'>, caller: Caller): CallerAccess {
  const grants = caller.key?.grants;
  const administrator = caller.administrator;
  const runs =
    caller.admin ||
    (grants?.allow_writes ?? false) ||
    (administrator !== undefined &&
      (administrator.role !== null ? roleHas(administrator.role, 'data.run') : Object.values(administrator.memberships).some((role) => roleHas(role, 'data.run'))));
  return {
    name: caller.name,
    admin: caller.admin,
    allow_writes: env.SLUICE_ALLOW_WRITES && runs,
    allowed_write_ops: grants?.allowed_write_ops ?? null,
    rate_limit: grants?.rate_limit ?? null,
    server_rate_limit: env.SLUICE_RATE_LIMIT ? formatRate(env.SLUICE_RATE_LIMIT) : null,
    budget: grants?.budget ?? null,
  };
}

/**
 * Whether requests to non-public endpoints must present a credential: on an
 * open server (no server key, no scoped key, no administrator) every caller
 * is `open`; otherwise no one is.
 */
export function authenticationRequired(caller: Pick<Caller, 'via'>): boolean {
  return caller.via !== 'open';
}
