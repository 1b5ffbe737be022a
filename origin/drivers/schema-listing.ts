import type { SchemaListing, SchemaTable } from './types.ts';

/** One catalog row: a column of a table, or a table with no columns (`column` null). */
export interface CatalogColumn {
  table: string;
  kind: string;
  column: string | null;
  type: string;
  nullable: boolean;
}

/**
 * Groups catalog rows (ordered by table, then column order) into the listing,
 * numbering columns from 1 and stopping after `maxColumns` columns in all.
 * Callers fetch one row more than `maxColumns` so `truncated` is exact.
 */
export function buildListing(rows: Iterable<CatalogColumn>, maxColumns: number): SchemaListing {
  const tables: SchemaTable[] = [];
  let current: SchemaTable | null = null;
  let count = 0;
  for (const row of rows) {
    if (row.column !== null && count >= maxColumns) return { tables, truncated: true };
    if (!current || current.name !== row.table) {
      current = { name: row.table, type: row.kind, columns: [] };
      tables.push(current);
    }
    if (row.column === null) continue;
    current.columns.push({
      name: row.column,
      type: row.type,
      nullable: row.nullable,
      position: current.columns.length + 1,
    });
    count++;
  }
  return { tables, truncated: false };
}
