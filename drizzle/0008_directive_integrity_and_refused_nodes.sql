DROP INDEX "chains_healthy_idx";--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "continued_after_halt_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "restore_not_honoured_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "halt_pass_number" bigint;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "node_type" text;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "content" text;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "content_bytes" integer;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_collapsed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_floor_breached" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_client_mismatch" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_broken_integrity" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_continued_after_halt" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_restore_not_honoured" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_collapsed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_floor_breached" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_client_mismatch" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_broken_integrity" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_continued_after_halt" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_restore_not_honoured" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "chains_collapsed_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE ("chains"."has_floor_breach" or "chains"."has_collapse_imminent");--> statement-breakpoint
CREATE INDEX "chains_checked_mismatch_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."checked_mismatch_count" > 0;--> statement-breakpoint
CREATE INDEX "chains_continued_after_halt_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."continued_after_halt_count" > 0;--> statement-breakpoint
CREATE INDEX "chains_restore_not_honoured_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."restore_not_honoured_count" > 0;--> statement-breakpoint
CREATE INDEX "chains_healthy_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE not "chains"."has_floor_breach" and not "chains"."has_collapse_imminent" and "chains"."mismatch_count" = 0 and "chains"."checked_mismatch_count" = 0 and "chains"."integrity_count" = 0;--> statement-breakpoint
-- Backfill. The roll-ups hold each chain's integrity findings in the hour (and day) of its
-- last activity: take the stored chains' old counts out before the counts change below.
UPDATE "chain_rollups" r SET "integrity_findings" = r."integrity_findings" - x.n
FROM (
  SELECT date_bin('1 hour', "last_activity_at", timestamptz '2000-01-01 00:00:00+00') AS b, "content_class", sum("integrity_count") AS n
  FROM "chains" GROUP BY 1, 2
) AS x
WHERE r."hour" = x.b AND r."content_class" = x."content_class";--> statement-breakpoint
UPDATE "chain_rollups_daily" r SET "integrity_findings" = r."integrity_findings" - x.n
FROM (
  SELECT date_bin('1 day', "last_activity_at", timestamptz '2000-01-01 00:00:00+00') AS b, "content_class", sum("integrity_count") AS n
  FROM "chains" GROUP BY 1, 2
) AS x
WHERE r."day" = x.b AND r."content_class" = x."content_class";--> statement-breakpoint
-- Chains summarised before this migration: bring their integrity figures up to the two new
-- kinds (lib/chains/integrity.ts), as db/queries/chain-summary.ts computes them.
UPDATE "chains" c SET "halt_pass_number" = least(
  (SELECT min(hb.pass_number) FROM "boundaries" hb WHERE hb.chain_id = c.chain_id AND hb.strategy = 'halt'),
  (SELECT min(hp.pass_number) FROM "passes" hp WHERE hp.chain_id = c.chain_id AND hp.directive LIKE 'HALT%'
    AND NOT EXISTS (SELECT 1 FROM "boundaries" ab WHERE ab.chain_id = hp.chain_id AND ab.pass_number = hp.pass_number AND ab.strategy <> 'halt'))
);--> statement-breakpoint
UPDATE "chains" c SET
  "integrity_count" = x.n + x.rnh + x.cah,
  "restore_not_honoured_count" = x.rnh,
  "continued_after_halt_count" = x.cah
FROM (
  SELECT seq.chain_id,
    (count(*) FILTER (WHERE (seq.prev_num IS NULL AND seq.pass_number > 1) OR seq.pass_number = seq.prev_num
      OR seq.pass_number > seq.prev_num + 1)
     + count(*) FILTER (WHERE seq.prev_num = seq.pass_number - 1 AND seq.input_content_hash IS NOT NULL
      AND k.pass_id IS NULL AND seq.input_content_hash <> seq.prev_hash))::int AS n,
    (count(*) FILTER (WHERE seq.prev_num = seq.pass_number - 1 AND seq.input_content_hash IS NOT NULL
      AND k.pass_id IS NOT NULL AND seq.input_content_hash <> k.current_content_hash))::int AS rnh,
    (count(*) FILTER (WHERE seq.pass_number > ch.halt_pass_number AND coalesce(seq.prev_num <= ch.halt_pass_number, true)))::int AS cah
  FROM (
    SELECT chain_id, pass_number, input_content_hash,
      lag(pass_number) OVER w AS prev_num,
      lag(current_content_hash) OVER w AS prev_hash
    FROM "passes"
    WINDOW w AS (PARTITION BY chain_id ORDER BY pass_number, id)
  ) AS seq
  JOIN "chains" ch ON ch.chain_id = seq.chain_id
  LEFT JOIN "boundaries" rb ON rb.chain_id = seq.chain_id AND rb.strategy = 'restore' AND rb.pass_number = seq.prev_num
  LEFT JOIN "passes" k ON k.chain_id = seq.chain_id AND k.pass_id = rb.restore_pass_id
  GROUP BY seq.chain_id
) AS x
WHERE x.chain_id = c.chain_id;--> statement-breakpoint
-- Then put the new integrity counts back, and count the stored chains under each status the
-- overview shows (db/ingest/rollups.ts keeps both from here on; chains deleted by retention
-- before this migration are not in the new status columns).
INSERT INTO "chain_rollups" ("hour", "content_class", "active_chains", "integrity_findings", "active_collapsed", "active_floor_breached", "active_client_mismatch", "active_broken_integrity", "active_continued_after_halt", "active_restore_not_honoured")
  SELECT date_bin('1 hour', "last_activity_at", timestamptz '2000-01-01 00:00:00+00'), "content_class", count(*), sum("integrity_count"),
    count(*) FILTER (WHERE "has_floor_breach" OR "has_collapse_imminent"),
    count(*) FILTER (WHERE "has_floor_breach"),
    count(*) FILTER (WHERE "mismatch_count" > 0),
    count(*) FILTER (WHERE "integrity_count" > 0),
    count(*) FILTER (WHERE "continued_after_halt_count" > 0),
    count(*) FILTER (WHERE "restore_not_honoured_count" > 0)
  FROM "chains" GROUP BY 1, 2
ON CONFLICT ("hour", "content_class") DO UPDATE SET
  "integrity_findings" = "chain_rollups"."integrity_findings" + excluded."integrity_findings",
  "active_collapsed" = "chain_rollups"."active_collapsed" + excluded."active_collapsed",
  "active_floor_breached" = "chain_rollups"."active_floor_breached" + excluded."active_floor_breached",
  "active_client_mismatch" = "chain_rollups"."active_client_mismatch" + excluded."active_client_mismatch",
  "active_broken_integrity" = "chain_rollups"."active_broken_integrity" + excluded."active_broken_integrity",
  "active_continued_after_halt" = "chain_rollups"."active_continued_after_halt" + excluded."active_continued_after_halt",
  "active_restore_not_honoured" = "chain_rollups"."active_restore_not_honoured" + excluded."active_restore_not_honoured";--> statement-breakpoint
INSERT INTO "chain_rollups_daily" ("day", "content_class", "active_chains", "integrity_findings", "active_collapsed", "active_floor_breached", "active_client_mismatch", "active_broken_integrity", "active_continued_after_halt", "active_restore_not_honoured")
  SELECT date_bin('1 day', "last_activity_at", timestamptz '2000-01-01 00:00:00+00'), "content_class", count(*), sum("integrity_count"),
    count(*) FILTER (WHERE "has_floor_breach" OR "has_collapse_imminent"),
    count(*) FILTER (WHERE "has_floor_breach"),
    count(*) FILTER (WHERE "mismatch_count" > 0),
    count(*) FILTER (WHERE "integrity_count" > 0),
    count(*) FILTER (WHERE "continued_after_halt_count" > 0),
    count(*) FILTER (WHERE "restore_not_honoured_count" > 0)
  FROM "chains" GROUP BY 1, 2
ON CONFLICT ("day", "content_class") DO UPDATE SET
  "integrity_findings" = "chain_rollups_daily"."integrity_findings" + excluded."integrity_findings",
  "active_collapsed" = "chain_rollups_daily"."active_collapsed" + excluded."active_collapsed",
  "active_floor_breached" = "chain_rollups_daily"."active_floor_breached" + excluded."active_floor_breached",
  "active_client_mismatch" = "chain_rollups_daily"."active_client_mismatch" + excluded."active_client_mismatch",
  "active_broken_integrity" = "chain_rollups_daily"."active_broken_integrity" + excluded."active_broken_integrity",
  "active_continued_after_halt" = "chain_rollups_daily"."active_continued_after_halt" + excluded."active_continued_after_halt",
  "active_restore_not_honoured" = "chain_rollups_daily"."active_restore_not_honoured" + excluded."active_restore_not_honoured";
