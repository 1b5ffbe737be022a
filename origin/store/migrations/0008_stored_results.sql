CREATE TABLE "results" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"key_name" text,
	"state" text NOT NULL,
	"format" text NOT NULL,
	"query" text,
	"version" integer,
	"connection" text NOT NULL,
	"chunk_rows" integer NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"chunks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" jsonb,
	"origin" text NOT NULL,
	"link_base" text NOT NULL,
	"lease_expires" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "results_state_lease" ON "results" USING btree ("state","lease_expires");--> statement-breakpoint
CREATE INDEX "results_expires" ON "results" USING btree ("expires_at");