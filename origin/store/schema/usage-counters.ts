import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Calls and rows per caller per calendar period in the server's zone
 * (`period` is `YYYY-MM-DD` or `YYYY-MM`): quotas and `/api/v1/usage/quotas`.
 */
export const usageCounters = pgTable(
  'usage_counters',
  {
    caller: text('caller').notNull(),
    period: text('period').notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull().default(0),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.caller, t.period] })],
);

export type UsageCounterRow = typeof usageCounters.$inferSelect;
