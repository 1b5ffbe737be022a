import { desc } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { deletedConnections } from '../../store/schema/index.ts';
import { type DeletedConnectionView, deletedConnectionView } from './view.ts';

/** Deleted connections, newest first, with who deleted them, when and why. */
export async function listDeletedConnections(deps: AppDeps): Promise<DeletedConnectionView[]> {
  const rows = await deps.store.db
    .select()
    .from(deletedConnections)
    .orderBy(desc(deletedConnections.deletedAt), desc(deletedConnections.id));
  return rows.map(deletedConnectionView);
}
