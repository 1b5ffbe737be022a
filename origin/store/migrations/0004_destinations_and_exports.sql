CREATE TABLE "destinations" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"url" text NOT NULL,
	"region" text,
	"endpoint" text,
	"user" text,
	"password" text,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "destinations_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "export_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"export" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"actor" text NOT NULL,
	"destination" text NOT NULL,
	"object" text,
	"rows" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"watermark_from" jsonb,
	"watermark_to" jsonb,
	"error" text,
	"fence" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exports" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"query" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"format" text NOT NULL,
	"destination" text NOT NULL,
	"path" text NOT NULL,
	"incremental" jsonb,
	"skip_empty" boolean DEFAULT true NOT NULL,
	"timeout" integer,
	"watermark" jsonb,
	"lease_holder" text,
	"lease_expires" timestamp with time zone,
	"lease_fence" bigint DEFAULT 0 NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exports_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE INDEX "export_runs_export_id" ON "export_runs" USING btree ("export","id");