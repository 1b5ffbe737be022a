import { integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { timestamps } from './columns.ts';

/** Workspaces partition managed objects (their `workspace` column); `default` always exists. */
export const workspaces = pgTable('workspaces', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description'),
  revision: integer('revision').notNull().default(1),
  createdBy: text('created_by'),
  ...timestamps,
});

export type WorkspaceRow = typeof workspaces.$inferSelect;

/** An administrator's role within one workspace, used when their server-wide role is null. */
export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspace: text('workspace').notNull(),
    admin: text('admin').notNull(),
    role: text('role').notNull(),
    addedBy: text('added_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspace, t.admin] })],
);

export type WorkspaceMemberRow = typeof workspaceMembers.$inferSelect;
