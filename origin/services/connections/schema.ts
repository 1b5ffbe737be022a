import type { SchemaListing } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { connectionForRun, findConnection, settingsOf } from './lookup.ts';

/** The spec's limit: past this many columns in all, the listing is cut off with `truncated: true`. */
export const SCHEMA_MAX_COLUMNS = 5000;

export interface SchemaOptions {
  /** Another database on the same server, where the type has several. */
  database?: string;
  /**
   * Query routes use a connection (inactive: 403); the management API may
   * inspect an inactive one.
   */
  requireActive: boolean;
  /** A workspace-scoped management call: a connection of another workspace is unknown. */
  workspace?: string;
}

/** Tables and columns of a connection: `{tables, truncated}`. */
export async function connectionSchema(deps: AppDeps, name: string, options: SchemaOptions): Promise<SchemaListing> {
  const { name: saved, settings } = options.requireActive ? await connectionForRun(deps, name) : await savedSettings(deps, name, options.workspace);
  const listing = await deps.drivers.get(saved, settings).schema({ database: options.database, maxColumns: SCHEMA_MAX_COLUMNS });
  return { tables: listing.tables, truncated: listing.truncated };
}

async function savedSettings(deps: AppDeps, name: string, workspace: string | undefined) {
  const row = await findConnection(deps.store.db, name, { workspace });
  return { name: row.name, settings: settingsOf(deps, row) };
}
