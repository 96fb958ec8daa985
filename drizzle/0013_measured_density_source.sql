CREATE TABLE "chain_sources" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"sha256" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"origin" text NOT NULL,
	"pass_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "passes_class_chain_idx";--> statement-breakpoint
DROP INDEX "passes_collapse_created_idx";--> statement-breakpoint
DROP INDEX "chains_healthy_idx";--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "density_source" text DEFAULT 'client' NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "measured_density" double precision;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "measurement_mismatch" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "unmeasured" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "effective_verdict" text;--> statement-breakpoint
-- Stored passes were all judged with density_source client: the chain follows their verdict.
-- Passes measured before this migration keep their measurement in server_checks.
UPDATE "passes" SET "effective_verdict" = "verdict",
  "measured_density" = ("server_checks"->>'semantic_density_score')::double precision,
  "measurement_mismatch" = coalesce(("server_checks"->>'measurement_mismatch')::boolean, false);--> statement-breakpoint
ALTER TABLE "passes" ALTER COLUMN "effective_verdict" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "measurement_mismatch_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "chains" c SET "measurement_mismatch_count" = m.n FROM (
  SELECT "chain_id", count(*)::int AS n FROM "passes" WHERE "measurement_mismatch" GROUP BY "chain_id"
) m WHERE c."chain_id" = m."chain_id";--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_measurement_mismatch" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_measurement_mismatch" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A chain counts under the status in the hour (and day) of its last activity, where its
-- active_chains row already is (db/ingest/rollups.ts).
UPDATE "chain_rollups" r SET "active_measurement_mismatch" = m.n FROM (
  SELECT date_bin('1 hour', "last_activity_at", timestamptz '2000-01-01 00:00:00+00') AS hour, "content_class", count(*) AS n
  FROM "chains" WHERE "measurement_mismatch_count" > 0 GROUP BY 1, 2
) m WHERE r."hour" = m.hour AND r."content_class" = m."content_class";--> statement-breakpoint
UPDATE "chain_rollups_daily" r SET "active_measurement_mismatch" = m.n FROM (
  SELECT date_bin('1 day', "last_activity_at", timestamptz '2000-01-01 00:00:00+00') AS day, "content_class", count(*) AS n
  FROM "chains" WHERE "measurement_mismatch_count" > 0 GROUP BY 1, 2
) m WHERE r."day" = m.day AND r."content_class" = m."content_class";--> statement-breakpoint
CREATE INDEX "chains_measurement_mismatch_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."measurement_mismatch_count" > 0;--> statement-breakpoint
CREATE INDEX "passes_class_chain_idx" ON "passes" USING btree ("content_class","chain_id","pass_number","id","current_size_bytes","semantic_density_score","content_broken","measured_density");--> statement-breakpoint
CREATE INDEX "passes_collapse_created_idx" ON "passes" USING btree ("created_at") WHERE "passes"."effective_verdict" in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT');--> statement-breakpoint
CREATE INDEX "chains_healthy_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE not "chains"."has_floor_breach" and not "chains"."has_collapse_imminent" and "chains"."mismatch_count" = 0 and "chains"."checked_mismatch_count" = 0 and "chains"."measurement_mismatch_count" = 0 and "chains"."integrity_count" = 0;