import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

/** `{column, parameter, start}`: the run binds the watermark to `parameter` and moves it to the largest `column` delivered. */
export interface Incremental {
  column: string;
  parameter: string;
  start: unknown;
}

/** A saved query's full result delivered to a destination, run on demand. */
export const exports = pgTable('exports', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  workspace: text('workspace').notNull().default('default'),
  query: text('query').notNull(),
  params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
  format: text('format', { enum: ['parquet', 'csv', 'ndjson'] }).notNull(),
  destination: text('destination').notNull(),
  path: text('path').notNull(),
  incremental: jsonb('incremental').$type<Incremental>(),
  skipEmpty: boolean('skip_empty').notNull().default(true),
  /** Seconds; null: the server's SLUICE_QUERY_TIMEOUT. */
  timeout: integer('timeout'),
  /** `{value}` once a run delivered rows (or a PATCH set it); null: `incremental.start` is next. */
  watermark: jsonb('watermark').$type<{ value: unknown; bigint?: boolean }>(),
  /** The lease a run holds (one run at a time across origins): who, until when, and its fencing number. */
  leaseHolder: text('lease_holder'),
  leaseExpires: timestamp('lease_expires', { withTimezone: true }),
  leaseFence: bigint('lease_fence', { mode: 'number' }).notNull().default(0),
  /** Bumped on every change; the ETag is derived from it. */
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type ExportRow = typeof exports.$inferSelect;

/**
 * An export's runs, written when a run starts (its id names the object, as
 * `{run}`) and when it ends. A run whose origin died stays `running` until
 * the next run finds its lease expired and marks it failed.
 */
export const exportRuns = pgTable(
  'export_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    export: text('export').notNull(),
    status: text('status', { enum: ['running', 'success', 'error'] }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    actor: text('actor').notNull(),
    destination: text('destination').notNull(),
    object: text('object'),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    watermarkFrom: jsonb('watermark_from').$type<{ value: unknown; bigint?: boolean }>(),
    watermarkTo: jsonb('watermark_to').$type<{ value: unknown; bigint?: boolean }>(),
    error: text('error'),
    fence: bigint('fence', { mode: 'number' }).notNull(),
  },
  (t) => [index('export_runs_export_id').on(t.export, t.id)],
);

export type ExportRunRow = typeof exportRuns.$inferSelect;
