import { timestamp } from 'drizzle-orm/pg-core';

/** Timestamps every managed object carries. Stored with zone; rendered in the server's zone. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};
