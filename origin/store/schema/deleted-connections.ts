import { jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Deleted connections stay listed with who deleted them, when and why. */
export const deletedConnections = pgTable('deleted_connections', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  /** The workspace the connection belonged to; null for rows kept from before it was recorded. */
  workspace: text('workspace'),
  /** The connection as it was, password masked. */
  snapshot: jsonb('snapshot').$type<Record<string, unknown>>().notNull(),
  deletedBy: text('deleted_by').notNull(),
  reason: text('reason').notNull(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull().defaultNow(),
});
