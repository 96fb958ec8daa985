ALTER TABLE "policies" ADD COLUMN "min_canary_retention" double precision;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "canaries" jsonb;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "canaries_surviving" jsonb;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "canary_retention" double precision;--> statement-breakpoint
CREATE INDEX "passes_chain_canaries_idx" ON "passes" USING btree ("chain_id","pass_number") WHERE "passes"."canaries" is not null;--> statement-breakpoint
CREATE INDEX "passes_chain_canary_retention_idx" ON "passes" USING btree ("chain_id","pass_number") WHERE "passes"."canary_retention" is not null;