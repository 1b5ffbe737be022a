import { boolean, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import type { KeyGrants } from '../../../shared/access/grants.ts';
import { timestamps } from './columns.ts';

/** A template of key grants, copied once into a key created from it. */
export const roles = pgTable('roles', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  workspace: text('workspace').notNull().default('default'),
  grants: jsonb('grants').$type<KeyGrants>().notNull(),
  /** Installed by POST /api/v1/examples. */
  example: boolean('example').notNull().default(false),
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type RoleRow = typeof roles.$inferSelect;
