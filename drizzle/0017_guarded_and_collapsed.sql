DROP INDEX "chains_collapsed_idx";--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "unanswered_floor_pass_number" bigint;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "floor_answered" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups" ADD COLUMN "active_guarded" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_rollups_daily" ADD COLUMN "active_guarded" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "chains_guarded_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE ("chains"."floor_answered" and "chains"."continued_after_halt_count" = 0 and "chains"."restore_not_honoured_count" = 0 and not coalesce("chains"."unanswered_floor_pass_number" < "chains"."last_pass_number", false));--> statement-breakpoint
CREATE INDEX "chains_attention_idx" ON "chains" USING btree ((case when ("continued_after_halt_count" > 0 or "restore_not_honoured_count" > 0 or coalesce("unanswered_floor_pass_number" < "last_pass_number", false)) then 2 when ("mismatch_count" > 0 or "checked_mismatch_count" > 0 or "measurement_mismatch_count" > 0 or "integrity_count" > 0 or (("has_floor_breach" or "has_collapse_imminent") and not "floor_answered")) then 1 else 0 end),"last_activity_at","chain_id");--> statement-breakpoint
CREATE INDEX "chains_collapsed_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE ("chains"."continued_after_halt_count" > 0 or "chains"."restore_not_honoured_count" > 0 or coalesce("chains"."unanswered_floor_pass_number" < "chains"."last_pass_number", false));--> statement-breakpoint
-- Backfill. Each chain's floor passes, answered by a boundary at their pass number or not
-- (db/queries/chain-summary.ts keeps the same two columns from here on). A pass still waiting
-- in the summary queue is counted here and again by its fold: a least and an or do not mind.
UPDATE "chains" c SET "unanswered_floor_pass_number" = f.unanswered, "floor_answered" = f.answered FROM (
  SELECT p."chain_id",
    min(p."pass_number") FILTER (WHERE b."chain_id" IS NULL) AS unanswered,
    bool_or(b."chain_id" IS NOT NULL) AS answered
  FROM "passes" p
  LEFT JOIN "boundaries" b ON b."chain_id" = p."chain_id" AND b."pass_number" = p."pass_number"
  WHERE p."effective_verdict" IN ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
  GROUP BY p."chain_id"
) f WHERE c."chain_id" = f."chain_id";--> statement-breakpoint
-- The roll-ups counted a chain as collapsed when it reached a floor; now only when it went
-- past one, and a chain the guard saved counts as guarded. Each stored chain's old
-- contribution is taken out and its new one put in, in the buckets it already counts in
-- (db/ingest/rollups.ts): collapsed and guarded in the hour of its last activity,
-- started-and-collapsed in the hour it started, collapsed in the hour of its collapse point.
-- Chains that retention deleted keep the counts they had.
UPDATE "chain_rollups" r SET
  "active_collapsed" = r."active_collapsed" + d.active_collapsed,
  "active_guarded" = r."active_guarded" + d.active_guarded,
  "started_collapsed" = r."started_collapsed" + d.started_collapsed,
  "collapsed_chains" = r."collapsed_chains" + d.collapsed_chains
FROM (
  SELECT v.bucket, c."content_class", sum(v.ac) AS active_collapsed, sum(v.ag) AS active_guarded,
    sum(v.sc) AS started_collapsed, sum(v.cc) AS collapsed_chains
  FROM (
    SELECT *, ("continued_after_halt_count" > 0 OR "restore_not_honoured_count" > 0
        OR coalesce("unanswered_floor_pass_number" < "last_pass_number", false)) AS collapsed
    FROM "chains"
  ) c
  CROSS JOIN LATERAL (VALUES
    (date_bin('1 hour', c."last_activity_at", timestamptz '2000-01-01 00:00:00+00'),
      c.collapsed::int - (c."has_floor_breach" OR c."has_collapse_imminent")::int,
      (c."floor_answered" AND NOT c.collapsed)::int, 0, 0),
    (date_bin('1 hour', c."first_seen_at", timestamptz '2000-01-01 00:00:00+00'),
      0, 0, c.collapsed::int - (c."collapse_pass_id" IS NOT NULL)::int, 0),
    (date_bin('1 hour', c."collapse_at", timestamptz '2000-01-01 00:00:00+00'), 0, 0, 0, c.collapsed::int - 1)
  ) AS v(bucket, ac, ag, sc, cc)
  WHERE v.bucket IS NOT NULL
  GROUP BY 1, 2
) d WHERE r."hour" = d.bucket AND r."content_class" = d."content_class";--> statement-breakpoint
UPDATE "chain_rollups_daily" r SET
  "active_collapsed" = r."active_collapsed" + d.active_collapsed,
  "active_guarded" = r."active_guarded" + d.active_guarded,
  "started_collapsed" = r."started_collapsed" + d.started_collapsed,
  "collapsed_chains" = r."collapsed_chains" + d.collapsed_chains
FROM (
  SELECT v.bucket, c."content_class", sum(v.ac) AS active_collapsed, sum(v.ag) AS active_guarded,
    sum(v.sc) AS started_collapsed, sum(v.cc) AS collapsed_chains
  FROM (
    SELECT *, ("continued_after_halt_count" > 0 OR "restore_not_honoured_count" > 0
        OR coalesce("unanswered_floor_pass_number" < "last_pass_number", false)) AS collapsed
    FROM "chains"
  ) c
  CROSS JOIN LATERAL (VALUES
    (date_bin('1 day', c."last_activity_at", timestamptz '2000-01-01 00:00:00+00'),
      c.collapsed::int - (c."has_floor_breach" OR c."has_collapse_imminent")::int,
      (c."floor_answered" AND NOT c.collapsed)::int, 0, 0),
    (date_bin('1 day', c."first_seen_at", timestamptz '2000-01-01 00:00:00+00'),
      0, 0, c.collapsed::int - (c."collapse_pass_id" IS NOT NULL)::int, 0),
    (date_bin('1 day', c."collapse_at", timestamptz '2000-01-01 00:00:00+00'), 0, 0, 0, c.collapsed::int - 1)
  ) AS v(bucket, ac, ag, sc, cc)
  WHERE v.bucket IS NOT NULL
  GROUP BY 1, 2
) d WHERE r."day" = d.bucket AND r."content_class" = d."content_class";
