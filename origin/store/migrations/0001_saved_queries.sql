CREATE TABLE "queries" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"collection" text,
	"published_version" integer,
	"next_version" integer DEFAULT 1 NOT NULL,
	"example" boolean DEFAULT false NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "queries_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "query_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"query_id" integer NOT NULL,
	"version" integer NOT NULL,
	"query_type" text DEFAULT 'sql' NOT NULL,
	"sql" text,
	"mongo" jsonb,
	"parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"description" text,
	"connection_name" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"author" text,
	"cache_ttl" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_versions_query_version" UNIQUE("query_id","version")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"query" text,
	"version" integer,
	"connection" text NOT NULL,
	"status" text NOT NULL,
	"rows" integer DEFAULT 0 NOT NULL,
	"duration_ms" double precision NOT NULL,
	"serialization_ms" double precision,
	"request_id" text,
	"key_name" text,
	"transport" text DEFAULT 'http' NOT NULL,
	"format" text,
	"error" text,
	"details" jsonb
);
--> statement-breakpoint
ALTER TABLE "query_versions" ADD CONSTRAINT "query_versions_query_id_queries_id_fk" FOREIGN KEY ("query_id") REFERENCES "public"."queries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "query_versions_query" ON "query_versions" USING btree ("query_id");--> statement-breakpoint
CREATE INDEX "runs_query_version_id" ON "runs" USING btree ("query","version","id");--> statement-breakpoint
CREATE INDEX "runs_time" ON "runs" USING btree ("time");--> statement-breakpoint
CREATE INDEX "runs_key" ON "runs" USING btree ("key_name");