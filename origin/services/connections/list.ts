import { asc } from 'drizzle-orm';
import type { AppDeps } from '../../http/context.ts';
import { connections } from '../../store/schema/index.ts';
import { type ConnectionSummary, connectionSummary } from './view.ts';

/** Every connection by name, with live usage. Entries never carry credentials. */
export async function listConnections(deps: AppDeps): Promise<ConnectionSummary[]> {
  const rows = await deps.store.db.select().from(connections).orderBy(asc(connections.name));
  return rows.map((row) => connectionSummary(row, deps.usage));
}
