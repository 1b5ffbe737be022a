import { eq } from 'drizzle-orm';
import type { Claims } from '../../access/jwt.ts';
import { canReach, canWrite } from '../../access/reachability.ts';
import type { Dialect } from '../../drivers/types.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { connectionEngine, type Engine } from '../../sql/engine.ts';
import { inspect, substituteLegacy } from '../../sql/index.ts';
import { connections } from '../../store/schema/index.ts';
import { type Rules, requestValues } from '../../../shared/parameters/index.ts';
import { connectionForRun, connectionInactive, connectionNotFound, workspaceOfConnection } from '../connections/lookup.ts';
import { assertLeastPrivilegeOf } from '../connections/least-privilege.ts';
import { bindableProblem, documentMarkers } from '../documents/bind.ts';
import { assertCollectionAllowed, boundQuery } from '../documents/prepare.ts';
import { checkDocumentParts } from '../documents/query.ts';
import { MONGO_NAMES } from '../queries/definition.ts';
import { checkListedValues } from '../parameter-values/check.ts';
import { type Runnable, resolveRunnable } from '../queries/resolve.ts';
import type { RowOptions } from './options.ts';
import type { Prepared } from './prepare.ts';
import type { SavedSource } from './request.ts';
import { checkStatement, connectionNotGranted, statementAccess } from './statement.ts';

/** A saved query's run as its caller asks for it. */
export interface SavedRunRequest extends Omit<SavedSource, 'kind'> {
  options: RowOptions;
  caller: Caller;
}

/** A saved version's run, checked, with what an export checks its own fields against. */
export interface PreparedSaved extends Prepared {
  query: string;
  version: number;
  /** The query's workspace. */
  workspace: string;
  /** The names the statement binds: its rules' and its markers' (an export checks its parameter against them). */
  rules: Rules;
  markers: readonly string[];
}

const LEGACY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Everything before the engine for a saved query (`/q/<name>`, an MCP tool,
 * an export): the version to run (unknown, unpublished, unreachable or a
 * draft the caller may not run: 404), the connection (one the caller may run
 * the query on: a key or workspace member only on connections of the
 * query's workspace), then the version's own checks, SQL or find, every
 * parameter problem at once (400 before anything reaches the database and
 * before the response cache is asked).
 */
export async function prepareSaved(deps: AppDeps, request: SavedRunRequest): Promise<PreparedSaved> {
  const runnable = await resolveRunnable(deps, request.name, request.version, request.caller);
  const { query, version, target } = runnable;
  const isFind = version.queryType === 'mongo';
  if (request.sqlOnly && isFind) throw badRequest(`Query "${query.name}" is a document-database query: exports run SQL queries only`);
  if (!isFind && version.sql === null) throw badRequest(`Query "${query.name}" has no SQL to run`);
  const connection = request.connection ?? version.connectionName;
  if (!connection) throw badRequest(`Query "${query.name}" has no default connection: give connection_name`);
  const connectionWorkspace = connection === target.connectionName ? target.connectionWorkspace : await workspaceOfConnection(deps, connection);
  // A key or workspace member runs a query only on connections of its workspace (docs/reference/workspaces.md).
  const runTarget = { ...target, connectionName: connection, connectionWorkspace };
  if (!canReach(request.caller, runTarget)) {
    throw request.caller.key
      ? connectionNotGranted(connection)
      : new SluiceError('forbidden', `Query "${query.name}" runs only on connections of its workspace "${query.workspace}"`);
  }
  // Verified only for queries that need it: 401 without a valid token.
  const claims = Object.values(runnable.rules).some((rule) => rule.from_claim !== undefined) ? await deps.signIn.claims(request.signInToken) : null;
  const ran = isFind ? await findOf(deps, request, runnable, connection, claims) : await sqlOf(deps, request, runnable, connection, canWrite(deps.env, request.caller, runTarget), claims);
  return {
    ...ran,
    label: { query: query.name, version: version.version, connection, filename: downloadName(query.name) },
    query: query.name,
    version: version.version,
    workspace: query.workspace,
    rules: runnable.rules,
  };
}

type Ran = Pick<PreparedSaved, 'engine' | 'cache' | 'markers'>;

/** A SQL version: markers bound, legacy `{name}` placeholders substituted, the statement through the guard and the caller's grants. */
async function sqlOf(deps: AppDeps, request: SavedRunRequest, { query, version, rules }: Runnable, connection: string, mayWrite: boolean, claims: Claims | null): Promise<Ran> {
  const text = version.sql!;
  const { dialect, engine } = await sqlTargetOf(deps, connection);
  const markers = inspect(text, dialect).markers;
  const params = parameterValues(text, markers, rules, request, claims);
  await checkListedValues(deps, { query: query.name, version: version.version, connection: version.connectionName ?? connection }, rules, params);
  const enumNames = new Set(Object.keys(rules).filter((name) => rules[name].enum !== undefined));
  const sql = substituteLegacy(text, dialect, legacyValues(text, params), enumNames);
  const access = statementAccess(request.caller, mayWrite);
  const { isRead } = checkStatement(deps.env, sql, engine, request.options.stream, access);
  await assertLeastPrivilegeOf(deps, connection, access.serverKey === true);
  return {
    engine: { kind: 'sql', input: { sql, params, connection, options: request.options, isRead } },
    cache: { cacheTtl: version.cacheTtl, isRead, params },
    markers,
  };
}

/**
 * A find version (`query_type: mongo`) on a mongodb connection: each
 * parameter a single value (an object or operator is refused), bound into
 * the filter as values; the refused operators checked again (a stored
 * definition never bypasses them), and a key's `allowed_tables` against the
 * collection. A find only ever reads: cached like a read statement.
 */
async function findOf(deps: AppDeps, request: SavedRunRequest, { query, version, rules }: Runnable, connection: string, claims: Claims | null): Promise<Ran> {
  const { row } = await connectionForRun(deps, connection);
  if (row.db !== 'mongodb') throw badRequest(`Connection "${connection}" is a ${row.db} connection: query "${query.name}" is a document query and runs on mongodb connections`);
  const stored = version.mongo;
  const { checked, problems } = checkDocumentParts(
    { collection: stored?.collection, filter: stored?.filter, projection: stored?.projection, sort: stored?.sort },
    MONGO_NAMES,
  );
  if (!checked) throw badRequest(`Query "${query.name}" cannot run: ${Object.entries(problems).map(([field, problem]) => `${field} ${problem}`).join('; ')}`);
  assertCollectionAllowed(request.caller, checked.collection);
  const markers = documentMarkers(checked.filter);
  const params = checkedValues(rules, markers, request, claims, [], bindableProblem);
  await checkListedValues(deps, { query: query.name, version: version.version, connection: version.connectionName ?? connection, collection: checked.collection }, rules, params);
  return {
    engine: { kind: 'find', input: { connection, query: { ...boundQuery(checked, params), skip: 0, limit: 0 }, options: request.options } },
    cache: { cacheTtl: version.cacheTtl, isRead: true, params },
    markers,
  };
}

/**
 * The SQL dialect of a connection, which decides what counts as a `:marker`,
 * and the engine whose rules the guard applies (a jdbc connection's engine
 * comes from its URL: origin/sql/engine.ts), so the answer cached for a
 * writer is never one the guard would refuse this caller.
 * Checked before the response cache, so an inactive or deleted connection
 * never has its cached answers served. Read through the connection cache
 * (kept fresh by its verbs and NOTIFY, as the run itself reads it); a
 * connection whose settings fail (an unset `${VAR}`, a password no key
 * opens) is not cached there and is read from the store, its run reporting
 * the failure.
 */
async function sqlTargetOf(deps: AppDeps, name: string): Promise<{ dialect: Dialect; engine: Engine }> {
  const { db, options } = await connectionTypeOf(deps, name);
  if (db === 'mongodb') throw badRequest(`Connection "${name}" is a mongodb connection: it runs document queries, not SQL`);
  const jdbc = db === 'jdbc' || db === 'h2';
  return { dialect: jdbc ? 'jdbc' : (db as Dialect), engine: connectionEngine(db, options) };
}

async function connectionTypeOf(deps: AppDeps, name: string): Promise<{ db: string; options: Record<string, unknown> }> {
  try {
    const { row } = await connectionForRun(deps, name);
    return { db: row.db, options: row.options };
  } catch (err) {
    if (err instanceof SluiceError && (err.code === 'connection_not_found' || err.code === 'connection_inactive')) throw err;
  }
  const [row] = await deps.store.db
    .select({ db: connections.db, active: connections.active, options: connections.options })
    .from(connections)
    .where(eq(connections.name, name));
  if (!row) throw connectionNotFound(name);
  if (!row.active) throw connectionInactive(name);
  return { db: row.db, options: row.options };
}

/**
 * The values the run binds: shared with the edge (`requestValues`), which
 * keys its cache by the very values bound here. Every problem at once, 400
 * before anything reaches the database.
 */
function parameterValues(sql: string, markers: readonly string[], rules: Rules, request: SavedRunRequest, claims: Claims | null): Record<string, unknown> {
  return checkedValues(rules, markers, request, claims, [...sql.matchAll(LEGACY_PLACEHOLDER)].map((match) => match[1]!));
}

/** The request's values by the rules; with `problemOf`, each marker's value checked too. Every problem at once. */
function checkedValues(
  rules: Rules,
  markers: readonly string[],
  request: SavedRunRequest,
  claims: Claims | null,
  legacy: string[],
  problemOf?: (value: unknown) => string | null | undefined,
): Record<string, unknown> {
  const resolved = requestValues({ rules, markers, legacy, supplied: request.supplied, source: request.source, claims, problems: request.problems });
  if ('errors' in resolved) throw badRequest('Invalid parameters', { errors: resolved.errors });
  if (problemOf) {
    const errors: Record<string, string> = {};
    for (const marker of markers) {
      const problem = problemOf(resolved.values[marker]);
      if (problem) errors[marker] = problem;
    }
    if (Object.keys(errors).length > 0) throw badRequest('Invalid parameters', { errors });
  }
  return resolved.values;
}

/** The values of the names the SQL uses as `{name}`; integers past 2^53 arrive as bigint and paste as digits. */
function legacyValues(sql: string, values: Record<string, unknown>): Record<string, unknown> {
  const used: Record<string, unknown> = {};
  for (const [, name] of sql.matchAll(LEGACY_PLACEHOLDER)) {
    if (!Object.hasOwn(values, name)) continue;
    const value = values[name];
    used[name] = typeof value === 'bigint' ? value.toString() : value;
  }
  return used;
}

/** A query name (letters, digits, spaces, `.`, `_`, `-`) as a Content-Disposition filename. */
const downloadName = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'result';
