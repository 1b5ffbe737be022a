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
import type { RowOptions } from '../run/options.ts';
import type { RunInput } from '../run/run-sql.ts';
import { assertLeastPrivilegeOf } from '../connections/least-privilege.ts';
import { checkStatement, connectionNotGranted, statementAccess } from '../run/statement.ts';
import { type Runnable, resolveRunnable } from './resolve.ts';
import { type PreparedDocumentRun, prepareSavedDocuments } from './run-documents.ts';

export interface SavedRunRequest {
  name: string;
  /** Absent: the published version. */
  version?: number;
  /** The request's connection; wins over the version's saved default. */
  connection?: string;
  /** Parameter values as supplied: text from a query string, typed values from JSON. */
  supplied: Record<string, unknown>;
  source: 'query' | 'json';
  /** Parameter problems the transport found itself (a repeated argument), listed with the rest. */
  problems?: Record<string, string>;
  options: RowOptions;
  caller: Caller;
  /** The sign-in token the request presented; `from_claim` parameters take their values from its claims only. */
  signInToken?: string;
}

export interface PreparedRun {
  /** The run without the client's abort signal, which the route adds only when the database is reached. */
  input: Omit<RunInput, 'signal' | 'scope'>;
  query: string;
  version: number;
  /** The version's `cache_ttl` as read for this request (0 or null: not cached). */
  cacheTtl: number | null;
  /** The statement is one plain read (only reads are cached). */
  isRead: boolean;
  /** The query's workspace. */
  workspace: string;
  /** The names the statement binds: its rules' and its markers' (an export checks its parameter against them). */
  rules: Rules;
  markers: readonly string[];
}

const LEGACY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Everything before the engine for `/q/<name>`: the version to run, the
 * connection (one the caller may run the query on), the parameter values
 * checked against the rules (every problem at once, 400 before anything
 * reaches the database), legacy `{name}` placeholders substituted, and the
 * statement through the guard and the caller's grants (writes, write
 * keywords, tables) before the response cache is asked.
 */
export async function prepareSavedRun(deps: AppDeps, request: SavedRunRequest): Promise<PreparedRun> {
  const runnable = await resolveRunnable(deps, request.name, request.version, request.caller);
  if (runnable.version.queryType !== 'sql' || runnable.version.sql === null) {
    throw badRequest(`Query "${runnable.query.name}" is a document-database query: exports run SQL queries only`);
  }
  return prepareSql(deps, request, runnable);
}

/** `/q/<name>`: a SQL query's run, or a document query's (`query_type: mongo`, run-documents.ts). */
export async function prepareQueryRun(deps: AppDeps, request: SavedRunRequest): Promise<(PreparedRun & { kind: 'sql' }) | PreparedDocumentRun> {
  const runnable = await resolveRunnable(deps, request.name, request.version, request.caller);
  if (runnable.version.queryType === 'mongo') return prepareSavedDocuments(deps, request, runnable);
  if (runnable.version.sql === null) throw badRequest(`Query "${runnable.query.name}" has no SQL to run`);
  return { kind: 'sql', ...(await prepareSql(deps, request, runnable)) };
}

async function prepareSql(deps: AppDeps, request: SavedRunRequest, { query, version, rules, target }: Runnable): Promise<PreparedRun> {
  const text = version.sql!;
  const connection = request.connection ?? version.connectionName;
  if (!connection) {
    throw badRequest(`Query "${query.name}" has no default connection: give connection_name`);
  }
  const connectionWorkspace = connection === target.connectionName ? target.connectionWorkspace : await workspaceOfConnection(deps, connection);
  // A key or workspace member runs a query only on connections of its workspace (docs/reference/workspaces.md).
  const runTarget = { ...target, connectionName: connection, connectionWorkspace };
  if (!canReach(request.caller, runTarget)) {
    throw request.caller.key
      ? connectionNotGranted(connection)
      : new SluiceError('forbidden', `Query "${query.name}" runs only on connections of its workspace "${query.workspace}"`);
  }
  const { dialect, engine } = await sqlTargetOf(deps, connection);
  // Verified only for queries that need it: 401 without a valid token.
  const claims = Object.values(rules).some((rule) => rule.from_claim !== undefined) ? await deps.signIn.claims(request.signInToken) : null;
  const markers = inspect(text, dialect).markers;
  const params = parameterValues(text, markers, rules, request, claims);
  const enumNames = new Set(Object.keys(rules).filter((name) => rules[name].enum !== undefined));
  const sql = substituteLegacy(text, dialect, legacyValues(text, params), enumNames);
  const access = statementAccess(request.caller, canWrite(deps.env, request.caller, runTarget));
  const { isRead } = checkStatement(deps.env, sql, engine, request.options.stream, access);
  await assertLeastPrivilegeOf(deps, connection, access.serverKey === true);
  return {
    input: { sql, params, connection, options: request.options, access },
    query: query.name,
    version: version.version,
    cacheTtl: version.cacheTtl,
    isRead,
    workspace: query.workspace,
    rules,
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
  const resolved = requestValues({
    rules,
    markers,
    legacy: [...sql.matchAll(LEGACY_PLACEHOLDER)].map((match) => match[1]),
    supplied: request.supplied,
    source: request.source,
    claims,
    problems: request.problems,
  });
  if ('errors' in resolved) throw badRequest('Invalid parameters', { errors: resolved.errors });
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
