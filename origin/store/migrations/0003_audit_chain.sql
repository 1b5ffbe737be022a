CREATE TABLE "audit_anchor" (
	"id" text PRIMARY KEY DEFAULT 'anchor' NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_delivery" (
	"output" text PRIMARY KEY NOT NULL,
	"target" text NOT NULL,
	"delivered_seq" bigint DEFAULT 0 NOT NULL,
	"skipped" bigint DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"last_delivered_at" timestamp with time zone,
	"instance" text,
	"lease_expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "prev_hash" text;--> statement-breakpoint
UPDATE "audit_log" AS "a" SET "prev_hash" = COALESCE((SELECT "b"."hash" FROM "audit_log" AS "b" WHERE "b"."seq" = "a"."seq" - 1), '');--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "prev_hash" SET NOT NULL;