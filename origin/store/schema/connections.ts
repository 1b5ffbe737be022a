import { boolean, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

export const connections = pgTable('connections', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  workspace: text('workspace').notNull().default('default'),
  db: text('db').notNull(),
  host: text('host'),
  port: integer('port'),
  user: text('user'),
  /** A literal, a `${VAR}` reference, or (with SLUICE_SECRET_KEY) ciphertext. */
  password: text('password'),
  database: text('database'),
  options: jsonb('options').$type<Record<string, unknown>>().notNull().default({}),
  active: boolean('active').notNull().default(true),
  example: boolean('example').notNull().default(false),
  /** Free text about the connection (its descriptions' notes); null when none. */
  notes: text('notes'),
  /** Bumped on every change; the ETag is derived from it. */
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type ConnectionRow = typeof connections.$inferSelect;
