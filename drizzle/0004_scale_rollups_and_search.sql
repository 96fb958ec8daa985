-- Trigram indexes for substring search; pg_trgm is a trusted extension (a database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "chain_rollups" (
	"hour" timestamp (3) with time zone NOT NULL,
	"content_class" text NOT NULL,
	"active_chains" bigint DEFAULT 0 NOT NULL,
	"integrity_findings" bigint DEFAULT 0 NOT NULL,
	"started_chains" bigint DEFAULT 0 NOT NULL,
	"started_collapsed" bigint DEFAULT 0 NOT NULL,
	"collapsed_chains" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "chain_rollups_pkey" PRIMARY KEY("hour","content_class")
);
--> statement-breakpoint
CREATE TABLE "chain_rollups_daily" (
	"day" timestamp (3) with time zone NOT NULL,
	"content_class" text NOT NULL,
	"active_chains" bigint DEFAULT 0 NOT NULL,
	"integrity_findings" bigint DEFAULT 0 NOT NULL,
	"started_chains" bigint DEFAULT 0 NOT NULL,
	"started_collapsed" bigint DEFAULT 0 NOT NULL,
	"collapsed_chains" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "chain_rollups_daily_pkey" PRIMARY KEY("day","content_class")
);
--> statement-breakpoint
CREATE TABLE "pass_rollups" (
	"hour" timestamp (3) with time zone NOT NULL,
	"content_class" text NOT NULL,
	"verdict" text NOT NULL,
	"passes" bigint DEFAULT 0 NOT NULL,
	"client_mismatches" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "pass_rollups_pkey" PRIMARY KEY("hour","content_class","verdict")
);
--> statement-breakpoint
CREATE TABLE "pass_rollups_daily" (
	"day" timestamp (3) with time zone NOT NULL,
	"content_class" text NOT NULL,
	"verdict" text NOT NULL,
	"passes" bigint DEFAULT 0 NOT NULL,
	"client_mismatches" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "pass_rollups_daily_pkey" PRIMARY KEY("day","content_class","verdict")
);
--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "collapse_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "chains_collapse_at_idx" ON "chains" USING btree ("collapse_at","chain_id") WHERE "chains"."collapse_at" is not null;--> statement-breakpoint
CREATE INDEX "chains_healthy_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE not "chains"."has_floor_breach" and not "chains"."has_collapse_imminent" and "chains"."mismatch_count" = 0 and "chains"."integrity_count" = 0;--> statement-breakpoint
CREATE INDEX "chains_imminent_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."has_collapse_imminent";--> statement-breakpoint
CREATE INDEX "chains_breached_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."has_floor_breach";--> statement-breakpoint
CREATE INDEX "chains_mismatch_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."mismatch_count" > 0;--> statement-breakpoint
CREATE INDEX "chains_integrity_idx" ON "chains" USING btree ("last_activity_at","chain_id") WHERE "chains"."integrity_count" > 0;--> statement-breakpoint
CREATE INDEX "chains_chain_id_trgm_idx" ON "chains" USING gin (lower("chain_id") gin_trgm_ops);--> statement-breakpoint
-- Backfill: the collapse time of existing chains, then the roll-ups from what is stored
-- (the same sums db/ingest/rollups.ts keeps up to date from here on).
UPDATE "chains" c SET "collapse_at" = p."created_at" FROM "passes" p
  WHERE p."chain_id" = c."chain_id" AND p."pass_id" = c."collapse_pass_id";--> statement-breakpoint
INSERT INTO "pass_rollups" ("hour", "content_class", "verdict", "passes", "client_mismatches")
  SELECT date_bin('1 hour', "created_at", timestamptz '2000-01-01 00:00:00+00'), "content_class", "verdict",
    count(*), count(*) FILTER (WHERE "client_mismatch")
  FROM "passes" GROUP BY 1, 2, 3;--> statement-breakpoint
INSERT INTO "chain_rollups" ("hour", "content_class", "active_chains", "integrity_findings", "started_chains", "started_collapsed", "collapsed_chains")
  SELECT d.hour, c."content_class", sum(d.active), sum(d.integrity), sum(d.started), sum(d.started_collapsed), sum(d.collapsed)
  FROM "chains" c
  CROSS JOIN LATERAL (VALUES
    (date_bin('1 hour', c."last_activity_at", timestamptz '2000-01-01 00:00:00+00'), 1, c."integrity_count", 0, 0, 0),
    (date_bin('1 hour', c."first_seen_at", timestamptz '2000-01-01 00:00:00+00'), 0, 0, 1, (c."collapse_pass_id" IS NOT NULL)::int, 0),
    (date_bin('1 hour', c."collapse_at", timestamptz '2000-01-01 00:00:00+00'), 0, 0, 0, 0, 1)
  ) AS d(hour, active, integrity, started, started_collapsed, collapsed)
  WHERE d.hour IS NOT NULL
  GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO "pass_rollups_daily" ("day", "content_class", "verdict", "passes", "client_mismatches")
  SELECT date_bin('1 day', "hour", timestamptz '2000-01-01 00:00:00+00'), "content_class", "verdict", sum("passes"), sum("client_mismatches")
  FROM "pass_rollups" GROUP BY 1, 2, 3;--> statement-breakpoint
INSERT INTO "chain_rollups_daily" ("day", "content_class", "active_chains", "integrity_findings", "started_chains", "started_collapsed", "collapsed_chains")
  SELECT date_bin('1 day', "hour", timestamptz '2000-01-01 00:00:00+00'), "content_class", sum("active_chains"), sum("integrity_findings"),
    sum("started_chains"), sum("started_collapsed"), sum("collapsed_chains")
  FROM "chain_rollups" GROUP BY 1, 2;
