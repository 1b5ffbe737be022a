import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { connections } from '../store/schema/index.ts';

/**
 * Every stored password, for rekey, the key-rotation alert and the startup
 * warnings. A table that holds a password (destinations, …) joins with one
 * line: its kind as reports name it, the table, its id, its name and the
 * password column.
 */
export interface SecretColumn {
  kind: string;
  table: PgTable;
  id: PgColumn;
  name: PgColumn;
  value: PgColumn;
}

export const SECRET_COLUMNS: readonly SecretColumn[] = [
  { kind: 'connection', table: connections, id: connections.id, name: connections.name, value: connections.password },
];
