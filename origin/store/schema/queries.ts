import { boolean, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

/** A saved query's identity; what it runs lives in its versions. */
export const queries = pgTable('queries', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  workspace: text('workspace').notNull().default('default'),
  /** At most one; belongs to the query, not to a version. */
  collection: text('collection'),
  publishedVersion: integer('published_version'),
  /** The number the next version gets: numbers are never reused, even after deletes. */
  nextVersion: integer('next_version').notNull().default(1),
  example: boolean('example').notNull().default(false),
  /** Bumped on every change; the ETag is derived from it. */
  revision: integer('revision').notNull().default(1),
  ...timestamps,
});

export type QueryRow = typeof queries.$inferSelect;
