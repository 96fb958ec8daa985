ALTER TABLE "chains" ADD COLUMN "min_measured_density" double precision;--> statement-breakpoint
-- Chains whose passes were measured before the column existed. A pass still waiting in the
-- summary queue is counted here and again by its fold: a minimum does not mind.
UPDATE "chains" c SET "min_measured_density" = m.d FROM (
  SELECT "chain_id", min("measured_density") AS d FROM "passes" WHERE "measured_density" IS NOT NULL GROUP BY "chain_id"
) m WHERE c."chain_id" = m."chain_id";--> statement-breakpoint
CREATE INDEX "chains_min_measured_density_idx" ON "chains" USING btree (coalesce("min_measured_density", 2),"chain_id");
