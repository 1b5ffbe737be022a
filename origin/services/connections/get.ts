import type { AppDeps } from '../../deps.ts';
import { findConnection } from './lookup.ts';
import { type ConnectionRead, connectionRead } from './view.ts';

/** One connection with its options and user (password masked) and its ETag; 404 `connection_not_found` (also for one of another workspace on a workspace-scoped call). */
export async function getConnection(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<ConnectionRead> {
  const row = await findConnection(deps.store.db, name, { workspace });
  return connectionRead(row, deps.usage, deps.privileges.view(row));
}
