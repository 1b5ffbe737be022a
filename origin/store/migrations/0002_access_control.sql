CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"secret_hash" text NOT NULL,
	"previous_secret_hash" text,
	"previous_expires_at" timestamp with time zone,
	"previous_last_used_at" timestamp with time zone,
	"grants" jsonb NOT NULL,
	"expires_at" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_from_role" text,
	"last_used_at" timestamp with time zone,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_keys_name_unique" UNIQUE("name"),
	CONSTRAINT "api_keys_secret_hash_unique" UNIQUE("secret_hash"),
	CONSTRAINT "api_keys_previous_secret_hash_unique" UNIQUE("previous_secret_hash")
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"grants" jsonb NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roles_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "admin_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"administrator_id" integer NOT NULL,
	"label" text,
	"secret_hash" text NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "admin_tokens_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE TABLE "administrators" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"role" text,
	"email" text,
	"active" boolean DEFAULT true NOT NULL,
	"last_seen_at" timestamp with time zone,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "administrators_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "workspace_members" (
	"workspace" text NOT NULL,
	"admin" text NOT NULL,
	"role" text NOT NULL,
	"added_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_members_workspace_admin_pk" PRIMARY KEY("workspace","admin")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspaces_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"caller" text NOT NULL,
	"period" text NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_caller_period_pk" PRIMARY KEY("caller","period")
);
--> statement-breakpoint
ALTER TABLE "admin_tokens" ADD CONSTRAINT "admin_tokens_administrator_id_administrators_id_fk" FOREIGN KEY ("administrator_id") REFERENCES "public"."administrators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_created_from_role" ON "api_keys" USING btree ("created_from_role");--> statement-breakpoint
CREATE INDEX "admin_tokens_administrator" ON "admin_tokens" USING btree ("administrator_id");--> statement-breakpoint
INSERT INTO "workspaces" ("name", "description", "created_by") VALUES ('default', 'Every object starts here.', 'system') ON CONFLICT DO NOTHING;
