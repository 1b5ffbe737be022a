import { and, eq, isNotNull } from 'drizzle-orm';
import type { Env } from '../env.ts';
import type { AppDeps, Caller } from '../http/context.ts';
import { type QueryRow, type QueryVersionRow, queries, queryVersions } from '../store/schema/index.ts';

/**
 * Which saved queries a caller reaches, and what it may do with them: the one
 * place the run path (`resolveRunnable`), `GET /catalog` and `GET /openapi.json`
 * decide it (spec, Authentication 5), so the three can never disagree.
 *
 * Today a caller is the server admin key, or anyone on an open server (both
 * `admin`), or an anonymous caller of a public endpoint (not `admin`). Scoped
 * keys with `connections`, `queries` and `collections` grants arrive with
 * access control, which fills in the functions below and nothing else.
 */

/**
 * What reachability reads of a caller; access control widens it with the
 * key's grants. `via` is optional because the run path is handed only what it
 * needs (`resolveRunnable` takes `{admin}`); at run time it is always there.
 */
export type AccessCaller = Pick<Caller, 'admin'> & Partial<Pick<Caller, 'via'>>;

/** What reachability reads of a query: its name (`queries` grants) and collection (`collections` grants). */
export type AccessTarget = Pick<QueryRow, 'name' | 'collection'>;

/** No valid key on a server that has one: only possible on a public endpoint (`/openapi.json`, `/docs`). */
const isAnonymous = (caller: AccessCaller) => !caller.admin && caller.via === 'anonymous';

/**
 * May the caller run this query through `/q/<name>` at all (which versions is
 * the run path's `mayRun`)? An administrator reaches every query; an anonymous
 * caller none. Any other caller is a key that is not the admin key: none
 * exist before access control, which replaces that last line with the key's
 * `connections`, `queries` and `collections` grants (spec, Authentication 5).
 */
export function canReach(caller: AccessCaller, _query: AccessTarget): boolean {
  if (caller.admin) return true;
  if (isAnonymous(caller)) return false;
  return true;
}

/**
 * May the caller run a write through this query, as far as grants go? The
 * server ceiling (`SLUICE_ALLOW_WRITES`) is applied here too: key write access
 * is never wider than it. Whether the SQL is a write at all is the caller's
 * concern (the guard still decides at run time).
 */
export function canWrite(env: Pick<Env, 'SLUICE_ALLOW_WRITES'>, caller: AccessCaller, query: AccessTarget): boolean {
  return env.SLUICE_ALLOW_WRITES && caller.admin && canReach(caller, query);
}

/** A query the caller reaches, with its published version. */
export interface ReachableQuery {
  query: QueryRow;
  version: QueryVersionRow;
}

/** Code-point order, the same on every store whatever its collation. */
const byName = (a: ReachableQuery, b: ReachableQuery) => (a.query.name < b.query.name ? -1 : a.query.name > b.query.name ? 1 : 0);

/** Every published query the caller reaches, with its published version, by name. Unpublished queries are never listed. */
export async function reachableQueries(deps: Pick<AppDeps, 'store'>, caller: AccessCaller): Promise<ReachableQuery[]> {
  const rows = await deps.store.db
    .select({ query: queries, version: queryVersions })
    .from(queries)
    .innerJoin(queryVersions, and(eq(queryVersions.queryId, queries.id), eq(queryVersions.version, queries.publishedVersion)))
    .where(isNotNull(queries.publishedVersion));
  return rows.filter((row) => canReach(caller, row.query)).sort(byName);
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
}

/** The caller's write settings and rate limits, read from one place (rate limits arrive with their own work). */
export function callerAccess(env: Pick<Env, 'SLUICE_ALLOW_WRITES'>, caller: Caller): CallerAccess {
  return {
    name: caller.name,
    admin: caller.admin,
    allow_writes: caller.admin && env.SLUICE_ALLOW_WRITES,
    allowed_write_ops: null,
    rate_limit: null,
    server_rate_limit: null,
  };
}

/** Whether requests to non-public endpoints must present a key (`SLUICE_API_KEY` set; later also any scoped key). */
export function authenticationRequired(env: Pick<Env, 'SLUICE_API_KEY'>): boolean {
  return env.SLUICE_API_KEY !== undefined;
}
