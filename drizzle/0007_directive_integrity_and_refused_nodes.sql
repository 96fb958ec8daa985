ALTER TABLE "chains" ADD COLUMN "continued_after_halt_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "restore_not_honoured_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chains" ADD COLUMN "halt_pass_number" bigint;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "node_type" text;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "content" text;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "content_bytes" integer;--> statement-breakpoint
ALTER TABLE "trace_rejections" ADD COLUMN "reason" text;--> statement-breakpoint
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
WHERE x.chain_id = c.chain_id;
