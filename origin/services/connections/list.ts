import { asc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { connections } from '../../store/schema/index.ts';
import { type ConnectionSummary, connectionSummary } from './view.ts';

/** Every connection by name (only one workspace's when given), with live usage. Entries never carry credentials. */
export async function listConnections(deps: AppDeps, workspace?: string): Promise<ConnectionSummary[]> {
  const rows = await deps.store.db
    .select()
    .from(connections)
    .where(workspace === undefined ? undefined : eq(connections.workspace, workspace))
    .orderBy(asc(connections.name));
  return rows.map((row) => connectionSummary(row, deps.usage, deps.privileges.view(row)));
}
