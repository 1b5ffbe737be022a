import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Where the audit chain starts once retention has removed its oldest entries:
 * the seq and hash of the newest removed entry. One row (`id` 'anchor'); no
 * row means the chain starts at seq 1 after the empty hash.
 */
export const auditAnchor = pgTable('audit_anchor', {
  id: text('id').primaryKey().default('anchor'),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
