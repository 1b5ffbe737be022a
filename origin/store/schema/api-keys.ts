import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import type { KeyGrants } from '../../../shared/access/grants.ts';
import { timestamps } from './columns.ts';

/**
 * Scoped API keys. Secrets are never stored: only the SHA-256 (hex) of the
 * current one and, while a rotation's grace lasts, of the previous one.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    workspace: text('workspace').notNull().default('default'),
    secretHash: text('secret_hash').notNull().unique(),
    previousSecretHash: text('previous_secret_hash').unique(),
    previousExpiresAt: timestamp('previous_expires_at', { withTimezone: true }),
    previousLastUsedAt: timestamp('previous_last_used_at', { withTimezone: true }),
    grants: jsonb('grants').$type<KeyGrants>().notNull(),
    /** `YYYY-MM-DD`: valid through the end of that day in the server's zone. */
    expiresAt: text('expires_at'),
    active: boolean('active').notNull().default(true),
    createdFromRole: text('created_from_role'),
    /** Installed by POST /api/v1/examples. */
    example: boolean('example').notNull().default(false),
    /** Written at most once a minute per key. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revision: integer('revision').notNull().default(1),
    createdBy: text('created_by'),
    ...timestamps,
  },
  (t) => [index('api_keys_created_from_role').on(t.createdFromRole)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
