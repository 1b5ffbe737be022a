import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row: the bundled dataset's connection only (`dataset`, what startup
 * installs), the whole tour (`loaded`, POST /api/v1/examples), a tour whose
 * install began and did not finish (`partial`), or removed (`unloaded`).
 * No row: never installed.
 */
export const examplesState = pgTable('examples_state', {
  id: text('id').primaryKey().default('examples'),
  status: text('status', { enum: ['dataset', 'loaded', 'partial', 'unloaded'] }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
