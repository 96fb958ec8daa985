CREATE INDEX "passes_created_idx" ON "passes" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "passes_collapse_created_idx" ON "passes" USING btree ("created_at") WHERE "passes"."verdict" in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT');--> statement-breakpoint
CREATE INDEX "chains_pass_count_idx" ON "chains" USING btree ("pass_count","chain_id");--> statement-breakpoint
CREATE INDEX "chains_min_density_idx" ON "chains" USING btree (coalesce("min_density", 2),"chain_id");--> statement-breakpoint
CREATE INDEX "chains_min_size_idx" ON "chains" USING btree (coalesce("min_size_bytes", 9007199254740991),"chain_id");--> statement-breakpoint
CREATE INDEX "chains_first_seen_idx" ON "chains" USING btree ("first_seen_at");