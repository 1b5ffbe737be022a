import { bigint, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The hash-chained audit log. `seq` is gap-free; each hash covers the previous one. */
export const auditLog = pgTable('audit_log', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  timestamp: timestamp('timestamp', { withTimezone: true }).notNull(),
  actor: text('actor').notNull(),
  action: text('action').notNull(),
  target: text('target').notNull(),
  changes: jsonb('changes').$type<Record<string, unknown>>().notNull(),
  hash: text('hash').notNull(),
});
