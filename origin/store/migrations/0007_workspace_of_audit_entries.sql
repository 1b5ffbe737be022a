ALTER TABLE "deleted_connections" ADD COLUMN "workspace" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "workspace" text;--> statement-breakpoint
CREATE INDEX "audit_log_workspace_seq" ON "audit_log" USING btree ("workspace","seq");--> statement-breakpoint
-- Entries written before the column: the workspace of the object the target names, when that object still
-- exists and was created before the entry (a name deleted in one workspace and re-created in another gives
-- the old entries to nobody). Entries about an object since deleted, and server-wide ones, stay null: only
-- server-wide reads (plain /api/v1) show them.
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "connections" AS o
  WHERE a."action" IN ('create_connection', 'update_connection', 'delete_connection', 'update_descriptions', 'import_descriptions')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "queries" AS o
  WHERE a."action" IN ('save_query', 'publish_query', 'unpublish_query', 'delete_query', 'delete_query_version', 'update_query_version', 'move_query')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "api_keys" AS o
  WHERE a."action" IN ('create_key', 'update_key', 'delete_key', 'rotate_api_key', 'end_previous_secret')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "roles" AS o
  WHERE a."action" IN ('create_role', 'update_role', 'delete_role')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "destinations" AS o
  WHERE a."action" IN ('create_destination', 'update_destination', 'delete_destination')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."workspace" FROM "exports" AS o
  WHERE a."action" IN ('create_export', 'update_export', 'delete_export')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" AS a SET "workspace" = o."name" FROM "workspaces" AS o
  WHERE a."action" IN ('create_workspace', 'update_workspace', 'add_member', 'update_member', 'remove_member', 'config_applied')
  AND o."name" = a."target" AND o."created_at" <= a."timestamp";--> statement-breakpoint
UPDATE "audit_log" SET "workspace" = 'default' WHERE "action" IN ('load_examples', 'unload_examples');
