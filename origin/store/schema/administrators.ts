import { boolean, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

/** Named administrators: `role` is server-wide (`owner`, `admin`, `developer`, `auditor`) or null. */
export const administrators = pgTable('administrators', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  role: text('role'),
  email: text('email'),
  active: boolean('active').notNull().default(true),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type AdministratorRow = typeof administrators.$inferSelect;

/** An administrator's sign-in tokens (`slc_adm_...`), stored only as SHA-256 (hex). */
export const adminTokens = pgTable(
  'admin_tokens',
  {
    id: text('id').primaryKey(),
    administratorId: integer('administrator_id')
      .notNull()
      .references(() => administrators.id, { onDelete: 'cascade' }),
    label: text('label'),
    secretHash: text('secret_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('admin_tokens_administrator').on(t.administratorId)],
);

export type AdminTokenRow = typeof adminTokens.$inferSelect;
