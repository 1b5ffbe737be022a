import type { SchemaListing } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { itemKey, itemsOf } from '../descriptions/read.ts';
import { connectionForRun, findConnection, settingsOf } from './lookup.ts';

/** The spec's limit: past this many columns in all, the listing is cut off with `truncated: true`. */
export const SCHEMA_MAX_COLUMNS = 5000;

export interface SchemaOptions {
  /** Another database on the same server, where the type has several. */
  database?: string;
  /** A workspace-scoped management call: a connection of another workspace is unknown. */
  workspace?: string;
}

/** Tables and columns of a connection in use: `{tables, truncated}` (the kept browse route; inactive: 403). */
export async function connectionSchema(deps: AppDeps, name: string, options: Pick<SchemaOptions, 'database'>): Promise<SchemaListing> {
  const { name: saved, settings } = await connectionForRun(deps, name);
  const listing = await deps.drivers.get(saved, settings).schema({ database: options.database, maxColumns: SCHEMA_MAX_COLUMNS });
  return { tables: listing.tables, truncated: listing.truncated };
}

/**
 * The v1 listing: tables and columns each with its `description` (null when
 * none), and the connection's `notes`. Descriptions belong to the
 * connection's own database: another one (`database`) is listed without.
 * An inactive connection may be inspected.
 */
export async function describedSchema(deps: AppDeps, name: string, options: SchemaOptions) {
  const row = await findConnection(deps.store.db, name, { workspace: options.workspace });
  const listing = await deps.drivers.get(row.name, settingsOf(deps, row)).schema({ database: options.database, maxColumns: SCHEMA_MAX_COLUMNS });
  const described = new Map(options.database ? [] : (await itemsOf(deps.store.db, row.id)).map((item) => [itemKey(item.table, item.column), item.description]));
  return {
    tables: listing.tables.map((table) => ({
      ...table,
      description: described.get(itemKey(table.name, null)) ?? null,
      columns: table.columns.map((column) => ({ ...column, description: described.get(itemKey(table.name, column.name)) ?? null })),
    })),
    truncated: listing.truncated,
    notes: row.notes,
  };
}
