import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

/** Where exports deliver: a bucket prefix (`s3://`, `gs://`, `r2://`) or a local folder. */
export const destinations = pgTable('destinations', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  workspace: text('workspace').notNull().default('default'),
  url: text('url').notNull(),
  region: text('region'),
  /** An S3-compatible endpoint (MinIO, an R2 account endpoint); null: the scheme's own. */
  endpoint: text('endpoint'),
  /** The access key id. */
  user: text('user'),
  /** The secret key: a literal, a `${VAR}` reference, or (with SLUICE_SECRET_KEY) ciphertext. */
  password: text('password'),
  /** Bumped on every change; the ETag is derived from it. */
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type DestinationRow = typeof destinations.$inferSelect;
