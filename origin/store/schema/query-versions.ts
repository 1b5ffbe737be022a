import { index, integer, jsonb, pgTable, serial, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { queries } from './queries.ts';

/** A document query's find, as stored in `mongo` (parameters as `":name"` strings in the filter). */
export interface StoredMongoQuery {
  collection: string;
  filter: Record<string, unknown> | null;
  projection: Record<string, unknown> | null;
  sort: Record<string, unknown> | null;
}

/** One immutable definition of a saved query. Only `cache_ttl` changes in place. */
export const queryVersions = pgTable(
  'query_versions',
  {
    id: serial('id').primaryKey(),
    queryId: integer('query_id')
      .notNull()
      .references(() => queries.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    queryType: text('query_type').notNull().default('sql'),
    sql: text('sql'),
    /** Document-database queries: collection, filter, projection, sort. */
    mongo: jsonb('mongo').$type<StoredMongoQuery>(),
    /** Name -> type name or rule object, as saved. */
    parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull().default({}),
    description: text('description'),
    connectionName: text('connection_name'),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    author: text('author'),
    cacheTtl: integer('cache_ttl'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('query_versions_query_version').on(t.queryId, t.version), index('query_versions_query').on(t.queryId)],
);

export type QueryVersionRow = typeof queryVersions.$inferSelect;
