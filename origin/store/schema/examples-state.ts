import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row: examples loaded, partly loaded (an interrupted load), or removed. No row: never installed. */
export const examplesState = pgTable('examples_state', {
  id: text('id').primaryKey().default('examples'),
  status: text('status', { enum: ['loaded', 'partial', 'unloaded'] }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
