import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row: whether the bundled examples are loaded, or partly (an interrupted load). */
export const examplesState = pgTable('examples_state', {
  id: text('id').primaryKey().default('examples'),
  status: text('status', { enum: ['loaded', 'partial'] }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
