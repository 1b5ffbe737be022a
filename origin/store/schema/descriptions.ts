import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { connections } from './connections.ts';

/**
 * Descriptions of a connection's tables and columns, written by hand, by a
 * configuration file or imported from the database's own comments. A
 * table's own description has `column_name` '' (a primary key cannot hold
 * NULL); the API shows it as `column: null`. They go with their connection.
 */
export const descriptions = pgTable(
  'descriptions',
  {
    connectionId: integer('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    tableName: text('table_name').notNull(),
    columnName: text('column_name').notNull().default(''),
    description: text('description').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.tableName, t.columnName] })],
);

export type DescriptionRow = typeof descriptions.$inferSelect;
