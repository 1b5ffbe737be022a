import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Calls, rows and database time per caller per calendar period in the
 * server's zone (`period` is `YYYY-MM-DD` or `YYYY-MM`): quotas, budgets and
 * `/api/v1/usage/quotas`.
 */
export const usageCounters = pgTable(
  'usage_counters',
  {
    caller: text('caller').notNull(),
    period: text('period').notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull().default(0),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    /** Milliseconds the database spent on the caller's runs: a budget's `db_seconds_per_day`. */
    dbMs: bigint('db_ms', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.caller, t.period] })],
);

export type UsageCounterRow = typeof usageCounters.$inferSelect;
