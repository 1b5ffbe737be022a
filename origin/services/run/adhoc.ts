import { type AccessCaller, canUseConnection, canWriteConnection, connectionGranted } from '../../access/reachability.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { connectionForRun } from '../connections/lookup.ts';
import type { RunInput } from './run-sql.ts';
import { checkStatement, connectionNotGranted, sqlDriver, statementAccess } from './statement.ts';
import { NUL_PROBLEM, nulPaths } from '../../../shared/nul.ts';

/**
 * Everything before the engine for `POST /execute_sql`: no parameter value
 * holds a NUL (a parameter error, as on `/q`), the caller may use
 * the connection (a key needs a `connections` grant of it, refused before
 * the connection is even looked up, and the connection in its workspace;
 * `queries` and `collections` grants never allow ad-hoc SQL), and the statement passes the guard and the caller's
 * grants (writes, write keywords, tables). `readOnly` refuses writes
 * whatever the caller's grants (the MCP `execute_sql` tool).
 */
export async function prepareAdhocRun(deps: AppDeps, caller: AccessCaller, request: Omit<RunInput, 'access'>, { readOnly = false } = {}): Promise<RunInput> {
  refuseNulValues(request.params);
  if (caller.key && !connectionGranted(caller.key.grants, request.connection)) throw connectionNotGranted(request.connection);
  const { name, row, settings } = await connectionForRun(deps, request.connection);
  const target = { name, workspace: row.workspace };
  if (!canUseConnection(caller, target)) {
    // A key's grant names a connection of another workspace: as not granted (docs/reference/workspaces.md).
    if (caller.key) throw connectionNotGranted(name);
    throw new SluiceError('forbidden', `Running SQL on connection "${name}" needs the data.run capability`);
  }
  const access = statementAccess(caller, !readOnly && canWriteConnection(deps.env, caller, target));
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  checkStatement(deps.env, request.sql, driver.engine ?? driver.dialect, request.options.stream, access);
  return { ...request, access };
}

/** A value holding a NUL (shared/nul.ts) is refused as for a saved query: `errors` by parameter name. */
function refuseNulValues(params: Record<string, unknown>): void {
  const names = new Set(nulPaths(params).map((path) => path.split('.')[0]!));
  if (names.size === 0) return;
  throw badRequest('Invalid parameters', { errors: Object.fromEntries([...names].map((name) => [name, NUL_PROBLEM])) });
}
