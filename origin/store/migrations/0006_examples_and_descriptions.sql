CREATE TABLE "descriptions" (
	"connection_id" integer NOT NULL,
	"table_name" text NOT NULL,
	"column_name" text DEFAULT '' NOT NULL,
	"description" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "descriptions_connection_id_table_name_column_name_pk" PRIMARY KEY("connection_id","table_name","column_name")
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "notes" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "example" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "roles" ADD COLUMN "example" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "descriptions" ADD CONSTRAINT "descriptions_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Before the tour, `loaded` meant the dataset's connection alone (what startup installs): that is `dataset` now.
UPDATE "examples_state" SET "status" = 'dataset' WHERE "status" = 'loaded';
