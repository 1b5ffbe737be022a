CREATE TABLE "config_applications" (
	"sha256" text PRIMARY KEY NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "managed_objects" (
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"workspace" text DEFAULT 'default' NOT NULL,
	"file_sha256" text NOT NULL,
	"managed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "managed_objects_kind_name_pk" PRIMARY KEY("kind","name")
);
