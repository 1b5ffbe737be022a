ALTER TABLE "results" ADD COLUMN "destination" text;--> statement-breakpoint
ALTER TABLE "results" ADD COLUMN "location" text;