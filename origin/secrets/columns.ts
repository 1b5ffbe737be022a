import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { connections, destinations, serverSecrets } from '../store/schema/index.ts';

/**
 * Every stored password, for rekey, the key-rotation alert and the startup
 * warnings: connections' and destinations'. A table that holds a password
 * joins with one line: its kind as reports name it, the table, its id, its
 * name and the password column.
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
  { kind: 'destination', table: destinations, id: destinations.id, name: destinations.name, value: destinations.password },
  // The results' link signing key, made on the first POST /results: rekeyed with the rest.
  { kind: 'server secret', table: serverSecrets, id: serverSecrets.name, name: serverSecrets.name, value: serverSecrets.value },
];
