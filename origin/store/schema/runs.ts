import { bigserial, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Run history. Keyed by query name and version number rather than foreign
 * keys: history outlives a deleted version, and rows are written in batches
 * off the request path.
 */
export const runs = pgTable(
  'runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    time: timestamp('time', { withTimezone: true }).notNull(),
    query: text('query'),
    version: integer('version'),
    connection: text('connection').notNull(),
    status: text('status', { enum: ['success', 'error'] }).notNull(),
    rows: integer('rows').notNull().default(0),
    durationMs: doublePrecision('duration_ms').notNull(),
    serializationMs: doublePrecision('serialization_ms'),
    requestId: text('request_id'),
    /** The OpenTelemetry trace the run belongs to, when tracing was on. */
    traceId: text('trace_id'),
    keyName: text('key_name'),
    /** `http`, `stream`, `export`... */
    transport: text('transport').notNull().default('http'),
    format: text('format'),
    error: text('error'),
    /** Export runs: destination, object, watermark; streams: fields_dropped. */
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [index('runs_query_version_id').on(t.query, t.version, t.id), index('runs_time').on(t.time), index('runs_key').on(t.keyName)],
);

export type RunRow = typeof runs.$inferSelect;
