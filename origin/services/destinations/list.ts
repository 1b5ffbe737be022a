import { asc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { destinations } from '../../store/schema/index.ts';
import { type DestinationSummary, destinationSummary } from './view.ts';

/** Every destination by name (only one workspace's when given). Entries never carry credentials. */
export async function listDestinations(deps: AppDeps, workspace?: string): Promise<DestinationSummary[]> {
  const rows = await deps.store.db
    .select()
    .from(destinations)
    .where(workspace === undefined ? undefined : eq(destinations.workspace, workspace))
    .orderBy(asc(destinations.name));
  return rows.map(destinationSummary);
}
