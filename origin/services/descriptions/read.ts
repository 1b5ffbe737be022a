import { asc, eq } from 'drizzle-orm';
import type { StoreDb } from '../../store/open.ts';
import { type ConnectionRow, descriptions } from '../../store/schema/index.ts';
import type { DescriptionItem, Descriptions } from './fields.ts';

/** The key of an item: a table's own description has column '' in the store. */
export const itemKey = (table: string, column: string | null | undefined): string => `${table}\u0000${column ?? ''}`;

/** A connection's items, by table then column (the table's own first). */
export async function itemsOf(db: StoreDb, connectionId: number): Promise<DescriptionItem[]> {
  const rows = await db
    .select()
    .from(descriptions)
    .where(eq(descriptions.connectionId, connectionId))
    .orderBy(asc(descriptions.tableName), asc(descriptions.columnName));
  return rows.map((row) => ({ table: row.tableName, column: row.columnName === '' ? null : row.columnName, description: row.description }));
}

export async function descriptionsOf(db: StoreDb, connection: ConnectionRow): Promise<Descriptions> {
  return { connection: connection.name, notes: connection.notes, items: await itemsOf(db, connection.id) };
}
