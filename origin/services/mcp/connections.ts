import { asc } from 'drizzle-orm';
import { canBrowseConnection, canUseConnection, connectionGranted } from '../../access/reachability.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { connections } from '../../store/schema/index.ts';
import { assertLeastPrivilegeOf } from '../connections/least-privilege.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { describedSchema } from '../connections/schema.ts';
import { connectionNotGranted } from '../run/statement.ts';

/** A connection as the `list_connections` tool shows it: never host, user, credentials or options. */
export interface UsableConnection {
  name: string;
  type: string;
  active: boolean;
}

/** The connections the caller may run ad-hoc SQL on (a key's `connections` grant in its workspace; an administrator's `data.run`), by name. */
export async function usableConnections(deps: Pick<AppDeps, 'store'>, caller: Caller): Promise<UsableConnection[]> {
  const rows = await deps.store.db
    .select({ name: connections.name, db: connections.db, active: connections.active, workspace: connections.workspace })
    .from(connections)
    .orderBy(asc(connections.name));
  return rows.filter((row) => canUseConnection(caller, row)).map((row) => ({ name: row.name, type: row.db, active: row.active }));
}

/**
 * The `list_tables` tool: a connection's tables and columns with their
 * descriptions and the connection's notes, as `GET
 * /api/v1/connections/{name}/schema` lists them (an agent writes better SQL
 * knowing what a column means), under the rules of the kept browse route
 * `GET /connections/{name}/schema` (a key
 * needs a `connections` grant of it, checked before the name is looked up;
 * an administrator `connections.read`; an inactive connection is refused;
 * an over-privileged one under SLUICE_REQUIRE_LEAST_PRIVILEGE too).
 */
export async function tablesOf(deps: AppDeps, caller: Caller, name: string, database?: string) {
  if (caller.key && !connectionGranted(caller.key.grants, name)) throw connectionNotGranted(name);
  const { row } = await connectionForRun(deps, name);
  if (!canBrowseConnection(caller, { name, workspace: row.workspace })) {
    throw caller.key ? connectionNotGranted(name) : new SluiceError('forbidden', `Browsing connection "${name}" needs the connections.read capability`);
  }
  await assertLeastPrivilegeOf(deps, name, caller.admin);
  return describedSchema(deps, name, { database, workspace: row.workspace });
}
