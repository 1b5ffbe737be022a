import { type AccessCaller, canUseConnection, canWriteConnection, connectionGranted } from '../../access/reachability.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import { NUL_PROBLEM, nulPaths } from '../../../shared/nul.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { assertLeastPrivilege } from '../connections/least-privilege.ts';
import { adhocFind } from '../documents/prepare.ts';
import type { DocumentRunInput } from './find.ts';
import type { CacheablePage } from './cache.ts';
import { prepareSaved } from './prepare-saved.ts';
import type { RunLabel } from './record.ts';
import type { FindSource, RunRequest, SqlSource } from './request.ts';
import type { RunInput } from './sql.ts';
import { checkStatement, connectionNotGranted, sqlDriver, statementAccess } from './statement.ts';

/** A run checked and ready for its engine, without what only the run itself adds (its signal, its scope). */
export interface Prepared {
  label: RunLabel;
  engine: { kind: 'sql'; input: Omit<RunInput, 'signal' | 'scope'> } | { kind: 'find'; input: Omit<DocumentRunInput, 'signal' | 'scope'> };
  /** A saved version's: whether and how long its pages are cached, and the values that key them. Null: never cached (ad-hoc runs). */
  cache: Pick<CacheablePage, 'cacheTtl' | 'isRead' | 'params'> | null;
}

/**
 * Everything before the engine, for every kind of source: who may run what
 * where (reachability, once), the parameters, the guard and the caller's
 * grants. Every refusal here is the request's fault (4xx) and nothing ran.
 */
export function prepare(deps: AppDeps, request: RunRequest): Promise<Prepared> {
  const { source, caller, options } = request;
  if (source.kind === 'saved') return prepareSaved(deps, { ...source, options, caller });
  return source.kind === 'sql' ? prepareAdhocSql(deps, request, source) : prepareAdhocFind(deps, request, source);
}

const adhocLabel = (connection: string): RunLabel => ({ query: null, version: null, connection, filename: 'result' });

/**
 * Ad-hoc SQL: no parameter value holds a NUL (a parameter error, as on
 * `/q`), the caller may use the connection, and the statement passes the
 * guard and the caller's grants (writes, write keywords, tables).
 * `readOnly` refuses writes whatever the grants (the MCP `execute_sql` tool).
 */
async function prepareAdhocSql(deps: AppDeps, request: RunRequest, source: SqlSource): Promise<Prepared> {
  refuseNulValues(source.params);
  const { name, row, settings } = await usableConnection(deps, request.caller, source.connection, 'Running SQL');
  const access = statementAccess(request.caller, !request.readOnly && canWriteConnection(deps.env, request.caller, { name, workspace: row.workspace }));
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  const { isRead } = checkStatement(deps.env, source.sql, driver.engine ?? driver.dialect, request.options.stream, access);
  await assertLeastPrivilege(deps, row, driver, access.serverKey === true);
  return {
    label: adhocLabel(name),
    engine: { kind: 'sql', input: { sql: source.sql, params: source.params, connection: name, options: request.options, isRead } },
    cache: null,
  };
}

/** An ad-hoc find: the caller may use the connection as for ad-hoc SQL, and it is a mongodb connection (documents/prepare.ts checks the rest). */
async function prepareAdhocFind(deps: AppDeps, request: RunRequest, source: FindSource): Promise<Prepared> {
  const { name, row } = await usableConnection(deps, request.caller, source.connection, 'Running queries');
  if (row.db !== 'mongodb') {
    throw badRequest(`Connection "${name}" is a ${row.db} connection: POST /execute_mongo runs document queries on mongodb connections (SQL goes to POST /execute_sql)`);
  }
  const query = adhocFind(request.caller, source);
  return { label: adhocLabel(name), engine: { kind: 'find', input: { connection: name, query, options: request.options } }, cache: null };
}

/**
 * A connection an ad-hoc run may use: a key needs a `connections` grant of
 * it (refused before the connection is even looked up) and the connection
 * in its workspace; `queries` and `collections` grants never allow ad-hoc runs.
 */
async function usableConnection(deps: AppDeps, caller: AccessCaller, connection: string, what: string): ReturnType<typeof connectionForRun> {
  if (caller.key && !connectionGranted(caller.key.grants, connection)) throw connectionNotGranted(connection);
  const found = await connectionForRun(deps, connection);
  if (!canUseConnection(caller, { name: found.name, workspace: found.row.workspace })) {
    // A key's grant names a connection of another workspace: as not granted (docs/reference/workspaces.md).
    if (caller.key) throw connectionNotGranted(found.name);
    throw new SluiceError('forbidden', `${what} on connection "${found.name}" needs the data.run capability`);
  }
  return found;
}

/** A value holding a NUL (shared/nul.ts) is refused as for a saved query: `errors` by parameter name. */
function refuseNulValues(params: Record<string, unknown>): void {
  const names = new Set(nulPaths(params).map((path) => path.split('.')[0]!));
  if (names.size === 0) return;
  throw badRequest('Invalid parameters', { errors: Object.fromEntries([...names].map((name) => [name, NUL_PROBLEM])) });
}
