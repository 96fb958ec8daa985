ALTER TABLE "policies" ADD COLUMN "format" text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "decoded_format" text;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "server_checks" jsonb;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "checked_verdict" text;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "checked_mismatch" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "checked_mismatch_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "service_name" text;--> statement-breakpoint
ALTER TABLE "originals" ADD COLUMN "alt_hash" text;--> statement-breakpoint
ALTER TABLE "originals" ADD COLUMN "alt_algorithm" text;--> statement-breakpoint
CREATE INDEX "chains_service_activity_idx" ON "chains" USING btree ("service_name","last_activity_at","chain_id");--> statement-breakpoint
CREATE INDEX "originals_alt_hash_prefix_idx" ON "originals" USING btree ("alt_hash" text_pattern_ops) WHERE "originals"."alt_hash" is not null;