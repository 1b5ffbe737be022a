import { desc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { deletedConnections } from '../../store/schema/index.ts';
import { type DeletedConnectionView, deletedConnectionView } from './view.ts';

/** Deleted connections, newest first, with who deleted them, when and why; of one workspace for a workspace-scoped call. */
export async function listDeletedConnections(deps: AppDeps, { workspace }: { workspace?: string } = {}): Promise<DeletedConnectionView[]> {
  const rows = await deps.store.db
    .select()
    .from(deletedConnections)
    .where(workspace === undefined ? undefined : eq(deletedConnections.workspace, workspace))
    .orderBy(desc(deletedConnections.deletedAt), desc(deletedConnections.id));
  return rows.map(deletedConnectionView);
}
