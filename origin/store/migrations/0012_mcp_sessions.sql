CREATE TABLE "mcp_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"init" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "mcp_sessions_owner_used" ON "mcp_sessions" USING btree ("owner","last_used");--> statement-breakpoint
CREATE INDEX "mcp_sessions_used" ON "mcp_sessions" USING btree ("last_used");