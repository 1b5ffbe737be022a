import { jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Objects a configuration file applied or named: they are "managed". Prune
 * deletes only these, and SLUICE_CONFIG_LOCKED refuses API changes to them.
 * Names are unique per kind across workspaces, as the resources' own are.
 */
export const managedObjects = pgTable(
  'managed_objects',
  {
    /** The file's section: `connections`, `destinations`, `roles`, `queries`, `api_keys`, `exports`, `descriptions`. */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    workspace: text('workspace').notNull().default('default'),
    /** SHA-256 of the file that last applied or named it. */
    fileSha256: text('file_sha256').notNull(),
    managedAt: timestamp('managed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.name] })],
);

/** Files applied at startup (SLUICE_CONFIG_FILE), by the SHA-256 of their bytes: each is applied once. */
export const configApplications = pgTable('config_applications', {
  sha256: text('sha256').primaryKey(),
  appliedAt: timestamp('applied_at', { withTimezone: true }).notNull().defaultNow(),
  actor: text('actor').notNull(),
  counts: jsonb('counts').$type<Record<string, unknown>>().notNull().default({}),
});

export type ManagedObjectRow = typeof managedObjects.$inferSelect;
