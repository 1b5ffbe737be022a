import type { AppDeps } from '../../deps.ts';
import { findDestination } from './lookup.ts';
import { type DestinationRead, destinationRead } from './view.ts';

/** One destination (password masked) and its ETag; 404 `destination_not_found` (also for one of another workspace on a workspace-scoped call). */
export async function getDestination(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<DestinationRead> {
  return destinationRead(await findDestination(deps.store.db, name, { workspace }));
}
