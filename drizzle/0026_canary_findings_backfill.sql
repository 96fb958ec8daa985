-- Chains stored before 0024 count their canary_lost findings only from their next canary
-- pass: count them now from their stored passes, as the summariser judges them
-- (db/queries/canaries.ts judgeCanaryFindings, lib/canaries/survival.ts canaryFindings): each
-- canary at each reported pass it is missing from after a pass that had it (or its first
-- reported pass), and each first pass below the floor of the class's latest policy. It reads
-- only passes that plant or report on canaries; a chain judged since 0024 keeps its count.
-- No webhook event is sent for these.
UPDATE "chains" c
SET "canary_finding_count" = j.n, "integrity_count" = c."integrity_count" - c."canary_finding_count" + j.n
FROM (
  WITH planted AS (
    -- The first planting of each id counts.
    SELECT DISTINCT ON (p.chain_id, k.value ->> 'id')
      p.chain_id, k.value ->> 'id' AS canary_id, p.pass_number AS planted_at
    FROM "passes" p CROSS JOIN LATERAL jsonb_array_elements(p.canaries) AS k(value)
    WHERE p.canaries IS NOT NULL
    ORDER BY p.chain_id, k.value ->> 'id', p.pass_number, p.id
  ),
  reported AS (
    SELECT p.chain_id, p.pass_number, p.id, p.canaries_surviving, p.canary_retention
    FROM "passes" p
    WHERE p.canary_retention IS NOT NULL AND p.canaries_surviving IS NOT NULL
      AND p.chain_id IN (SELECT chain_id FROM planted)
  ),
  lost AS (
    SELECT s.chain_id, count(*) FILTER (WHERE NOT s.present AND coalesce(s.had, true)) AS n
    FROM (
      SELECT pl.chain_id, r.canaries_surviving @> jsonb_build_array(pl.canary_id) AS present,
        lag(r.canaries_surviving @> jsonb_build_array(pl.canary_id))
          OVER (PARTITION BY pl.chain_id, pl.canary_id ORDER BY r.pass_number, r.id) AS had
      FROM planted pl JOIN reported r ON r.chain_id = pl.chain_id AND r.pass_number >= pl.planted_at
    ) AS s
    GROUP BY s.chain_id
  ),
  floors AS (
    SELECT DISTINCT ON (content_class) content_class, min_canary_retention
    FROM "policies" ORDER BY content_class, version DESC
  ),
  below AS (
    SELECT s.chain_id, count(*) FILTER (WHERE s.low AND NOT coalesce(s.was_low, false)) AS n
    FROM (
      SELECT r.chain_id, r.canary_retention < f.min_canary_retention AS low,
        lag(r.canary_retention < f.min_canary_retention) OVER (PARTITION BY r.chain_id ORDER BY r.pass_number, r.id) AS was_low
      FROM reported r
      JOIN "chains" ch ON ch.chain_id = r.chain_id
      JOIN floors f ON f.content_class = ch.content_class AND f.min_canary_retention IS NOT NULL
    ) AS s
    GROUP BY s.chain_id
  )
  SELECT ids.chain_id, (coalesce(l.n, 0) + coalesce(b.n, 0))::int AS n
  FROM (SELECT DISTINCT chain_id FROM planted) AS ids
  LEFT JOIN lost l ON l.chain_id = ids.chain_id
  LEFT JOIN below b ON b.chain_id = ids.chain_id
) AS j
WHERE c.chain_id = j.chain_id AND c.canary_finding_count <> j.n;
