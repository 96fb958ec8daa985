CREATE TABLE "auth_attempts" (
	"bucket" text PRIMARY KEY NOT NULL,
	"attempts" integer NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
DROP TABLE "sign_in_failures" CASCADE;--> statement-breakpoint
CREATE INDEX "auth_attempts_window_idx" ON "auth_attempts" USING btree ("window_start");