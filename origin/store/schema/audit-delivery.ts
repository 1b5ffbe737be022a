import { bigint, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Delivery of audit entries to one output (`file`, `webhook`): how far it got
 * and which origin holds the lease to deliver (one at a time across origins).
 */
export const auditDelivery = pgTable('audit_delivery', {
  output: text('output').primaryKey(),
  /** Where it delivers, credentials removed; progress restarts at 0 when it changes. */
  target: text('target').notNull(),
  deliveredSeq: bigint('delivered_seq', { mode: 'number' }).notNull().default(0),
  /** Entries retention removed before they were delivered. */
  skipped: bigint('skipped', { mode: 'number' }).notNull().default(0),
  lastError: text('last_error'),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
  lastDeliveredAt: timestamp('last_delivered_at', { withTimezone: true }),
  instance: text('instance'),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
});

export type AuditDeliveryRow = typeof auditDelivery.$inferSelect;
