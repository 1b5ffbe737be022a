import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** A chunk of a result, complete and in place: numbered from 0. */
export interface ResultChunk {
  index: number;
  rows: number;
  bytes: number;
}

/**
 * Stored results (`POST /results`, docs/reference/results.md): one run whose
 * rows were written to numbered chunk files. The row is the result's state
 * across origins; the chunks live in the folder of the origin that wrote
 * them (`origin`), which holds a lease while it writes.
 */
export const results = pgTable(
  'results',
  {
    id: text('id').primaryKey(),
    /** Who may read it: `key:<id>`, `administrator:<id>`, or how an unnamed caller came (`open`, `break-glass`). */
    owner: text('owner').notNull(),
    keyName: text('key_name'),
    state: text('state', { enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] }).notNull(),
    format: text('format', { enum: ['csv', 'tsv', 'ndjson', 'parquet'] }).notNull(),
    query: text('query'),
    version: integer('version'),
    connection: text('connection').notNull(),
    chunkRows: integer('chunk_rows').notNull(),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    truncated: boolean('truncated').notNull().default(false),
    chunks: jsonb('chunks').$type<ResultChunk[]>().notNull().default([]),
    /** `{error, detail}` as the query endpoints answer it; null unless failed. */
    error: jsonb('error').$type<{ error: string; detail?: unknown }>(),
    /** `host:pid` of the origin writing (or holding) its chunks, and until when its lease runs. */
    origin: text('origin').notNull(),
    /** Where that origin was reached (`http://host:port`): every origin's links to its chunks point there. */
    linkBase: text('link_base').notNull(),
    /** With SLUICE_RESULT_DESTINATION: the destination whose credentials reach its chunks, and its url when they were written (its chunks are under `<location>/<id>/`). Null: in the result folder of the origin at `linkBase`. */
    destination: text('destination'),
    location: text('location'),
    leaseExpires: timestamp('lease_expires', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** When its chunks are removed (finished + SLUICE_RESULT_TTL); then, a day later, the row. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [index('results_state_lease').on(t.state, t.leaseExpires), index('results_expires').on(t.expiresAt)],
);

export type ResultRow = typeof results.$inferSelect;

/** Secrets the server makes for itself once and every origin on the store shares (the results' link signing key), encrypted under SLUICE_SECRET_KEY when set. */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
