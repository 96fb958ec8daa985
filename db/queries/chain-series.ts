// The chain page's curves: downsampled in the database, cached per chain version.
import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { col, queryRows } from "../sql";
import { getReadDb } from "../index";
import { policies } from "../schema";
import { getIntegrityContext } from "./chain-integrity";
import { buildChainSeries, type ChainSeries } from "@/lib/chains/series";
import { VERDICTS } from "@/lib/guard/guard";
import { DOWNSAMPLE, PASS_FLAG } from "@/lib/chains/downsample";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import type { ChainVersion } from "@/lib/chains/types";
import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { processSingleton } from "@/lib/process-singleton";

/** A kept pass as buildChainSeries reads it, and the chain's totals on every row. */
const SERIES_ROW = {
  pass_id: col.text,
  pass_number: col.number,
  size: col.number,
  density: col.number,
  verdict: col.oneOf(VERDICTS),
  directive: col.text,
  client_verdict: col.text.nullable(),
  client_mismatch: col.bool,
  checked_mismatch: col.bool,
  checked_verdict: col.oneOf(VERDICTS).nullable(),
  measured_density: col.number.nullable(),
  measurement_mismatch: col.bool,
  effective_verdict: col.oneOf(VERDICTS),
  unmeasured: col.bool,
  content_class: col.text,
  policy_version: col.int,
  floor_size: col.number,
  floor_density: col.number,
  max_pass: col.number,
  flags: col.int,
  input_content_hash: col.text.nullable(),
  current_content_hash: col.text,
  prev_pass_id: col.text.nullable(),
  prev_pass_number: col.number.nullable(),
  prev_hash: col.text.nullable(),
  total: col.number,
  flagged_total: col.number,
};

/**
 * The floors of every stored policy version as SQL over a passes alias: a `case` over
 * (class, version), the built-in default for a class with no stored version. A chain uses
 * a handful of versions; inlining them keeps the per-pass floor out of a join, whose sort
 * would spill to disk on a chain of 100,000 passes. Policies are read once per series.
 */
async function floorExpressions(): Promise<(p: SQL) => { size: SQL; density: SQL; maxPass: SQL }> {
  const db = await getReadDb();
  const rows = await db.select().from(policies);
  const d = CONSERVATIVE_DEFAULT_POLICY;
  return (p) => {
    const pick = (value: (r: (typeof rows)[number]) => number, fallback: number) =>
      rows.length === 0
        ? sql`${sql.raw(String(fallback))}`
        : sql`(case ${sql.join(
            rows.map(
              (r) =>
                sql`when ${p}.content_class = ${r.contentClass} and ${p}.policy_version = ${sql.raw(String(r.version))} then ${sql.raw(String(value(r)))}`,
            ),
            sql` `,
          )} else ${sql.raw(String(fallback))} end)`;
    return {
      size: pick((r) => r.minSizeBytes, d.min_size_bytes),
      density: pick((r) => r.minSemanticDensity, d.min_semantic_density),
      maxPass: pick((r) => r.maxPassNumber, d.max_pass_number),
    };
  };
}

/**
 * The chain's curves, downsampled in the database as lib/chains/downsample.ts specifies: one ordered
 * scan computes each pass's flags against the pass before it (keeping only numbers, so a
 * chain of 100,000 passes stays in memory), then per bucket the first, last, smallest and
 * largest pass of each curve are kept, plus every flagged pass (collapse point, boundaries,
 * floor crossings, mismatches, integrity findings, policy changes). Only the kept passes
 * are read in full.
 */
export async function getChainSeries(
  chainId: string,
  boundaryList: readonly BoundaryWire[],
  version?: ChainVersion,
): Promise<ChainSeries> {
  if (!version) return computeChainSeries(chainId, boundaryList);
  const key = JSON.stringify([chainId, version.pass_count, version.boundary_count, version.last_activity_at]);
  const cached = seriesCache.get(key);
  if (cached) {
    // Most recently used last, so the oldest entry is the first one evicted.
    seriesCache.delete(key);
    seriesCache.set(key, cached);
    return cached;
  }
  const computing = computeChainSeries(chainId, boundaryList);
  seriesCache.set(key, computing);
  computing.then(
    (series) => {
      // Short chains are quick to draw again; the cache is for the long ones.
      if (series.total_passes <= DOWNSAMPLE.fullDetailUpTo) seriesCache.delete(key);
    },
    () => seriesCache.delete(key),
  );
  for (const oldest of seriesCache.keys()) {
    if (seriesCache.size <= SERIES_CACHE_SIZE) break;
    seriesCache.delete(oldest);
  }
  return computing;
}

/**
 * Downsampled series of long chains, by chain and version (pass count, boundary count, last
 * activity). Passes, boundaries and stored policy versions are never changed once written,
 * so an entry is right until the chain's version moves; then the key changes and the entry
 * ages out. Per process: each app instance keeps its own.
 */
const SERIES_CACHE_SIZE = 32;
const seriesCache = processSingleton("seriesCache", () => new Map<string, Promise<ChainSeries>>());

async function computeChainSeries(chainId: string, boundaryList: readonly BoundaryWire[]): Promise<ChainSeries> {
  const db = await getReadDb();
  const boundaryNumbers = JSON.stringify(boundaryList.map((b) => b.pass_number));
  const restoreIds = JSON.stringify(boundaryList.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : [])));
  // Inlined: a bind parameter inside `case` has no type for `|` to work with.
  const flag = Object.fromEntries(Object.entries(PASS_FLAG).map(([k, v]) => [k, sql.raw(String(v))])) as Record<
    keyof typeof PASS_FLAG,
    SQL
  >;
  const [floorOf, context] = await Promise.all([floorExpressions(), getIntegrityContext(chainId, boundaryList)]);
  // Restore boundaries by pass number, with the output hash of the pass each restored.
  const restores = JSON.stringify([...context.restores].map(([after, r]) => ({ after, hash: r.expected_hash })));
  const haltAt = context.halt_at === null ? sql`null::bigint` : sql`${context.halt_at}::bigint`;
  const floorOfScan = floorOf(sql.raw("p"));
  const floorOfRow = floorOf(sql.raw("r"));
  const rows = await db.transaction(async (tx) => {
    // Sorting and hashing 100,000 narrow rows fits in this; the default (4 MB) spills to disk.
    await tx.execute(sql`set local work_mem = '32MB'`);
    return queryRows(
      tx,
      sql`
        with scan as (
          select p.id, p.pass_number, p.current_size_bytes as s, p.semantic_density_score as d,
            p.client_mismatch or p.checked_mismatch or p.measurement_mismatch as client_mismatch,
            row_number() over w as rn,
            p.verdict <> lag(p.verdict) over w as verdict_change,
            p.policy_version <> lag(p.policy_version) over w or p.content_class <> lag(p.content_class) over w as policy_change,
            (p.current_size_bytes < ${floorOfScan.size}) <> lag(p.current_size_bytes < ${floorOfScan.size}) over w as size_crossing,
            (p.semantic_density_score < ${floorOfScan.density}) <> lag(p.semantic_density_score < ${floorOfScan.density}) over w as density_crossing,
            lag(p.pass_number) over w as prev_pn,
            p.input_content_hash as input_hash,
            lag(p.current_content_hash) over w as prev_hash,
            p.pass_number > ${haltAt} and coalesce(lag(p.pass_number) over w <= ${haltAt}, true) as after_halt,
            p.pass_number in (select value::bigint from json_array_elements_text(${boundaryNumbers}::json))
              or p.pass_id in (select value from json_array_elements_text(${restoreIds}::json)) as boundary
          from passes p
          where p.chain_id = ${chainId}
          window w as (order by p.pass_number, p.id)
        ),
        seq as materialized (
          select id, pass_number, s, d,
            (case when rn = 1 then ${flag.first} else 0 end)
            | (case when id = (select id from passes where chain_id = ${chainId} order by pass_number desc, id desc limit 1)
                then ${flag.last} else 0 end)
            | (case when rn > 1 and verdict_change then ${flag.verdictChange} else 0 end)
            | (case when rn > 1 and policy_change then ${flag.policyChange} else 0 end)
            | (case when rn > 1 and size_crossing then ${flag.sizeCrossing} else 0 end)
            | (case when rn > 1 and density_crossing then ${flag.densityCrossing} else 0 end)
            | (case when client_mismatch then ${flag.clientMismatch} else 0 end)
            | (case when (rn = 1 and pass_number > 1) or pass_number = prev_pn or pass_number > prev_pn + 1
                  or (pass_number = prev_pn + 1 and input_hash is not null and input_hash <> coalesce(
                    (select r.hash from json_to_recordset(${restores}::json) as r(after bigint, hash text) where r.after = prev_pn),
                    prev_hash))
                  or after_halt then ${flag.integrity} else 0 end)
            | (case when boundary then ${flag.boundary} else 0 end)
            as flags
          from scan
        ),
        bounds as (select min(pass_number) as lo, max(pass_number) as hi, count(*) as n from seq),
        picks as (
          select unnest(array[
            (min(array[pass_number::float8, id::float8]))[2], (max(array[pass_number::float8, id::float8]))[2],
            (min(array[s::float8, id::float8]))[2], (max(array[s::float8, id::float8]))[2],
            (min(array[d, id::float8]))[2], (max(array[d, id::float8]))[2]
          ])::bigint as id
          from seq cross join bounds
          where bounds.n > ${DOWNSAMPLE.fullDetailUpTo}
          group by floor((pass_number - bounds.lo)::float8 * ${DOWNSAMPLE.buckets} / (bounds.hi - bounds.lo + 1))
        ),
        flagged as (
          select id from seq where flags <> 0 order by pass_number, id limit ${DOWNSAMPLE.flaggedCap}
        ),
        kept as materialized (
          select seq.id, seq.flags from seq cross join bounds
          where bounds.n <= ${DOWNSAMPLE.fullDetailUpTo} or seq.id in (select id from picks) or seq.id in (select id from flagged)
        )
        select r.pass_id, r.pass_number::float8 as pass_number, r.current_size_bytes::float8 as size, r.semantic_density_score as density,
          r.verdict, r.directive, r.client_verdict, r.client_mismatch, r.checked_mismatch, r.checked_verdict,
          r.measured_density, r.measurement_mismatch, r.effective_verdict, r.unmeasured,
          r.content_class, r.policy_version,
          ${floorOfRow.size}::float8 as floor_size, ${floorOfRow.density}::float8 as floor_density, ${floorOfRow.maxPass}::float8 as max_pass,
          kept.flags, r.input_content_hash, r.current_content_hash,
          prev.pass_id as prev_pass_id, prev.pass_number::float8 as prev_pass_number, prev.current_content_hash as prev_hash,
          (select n from bounds)::float8 as total,
          (select count(*) from seq where flags <> 0)::float8 as flagged_total
        from kept
        -- By primary key: the planner cannot know how few passes are kept and would scan them all.
        join passes r on r.id = kept.id and r.id = any((select array_agg(id) from kept)::bigint[])
        -- The pass before, read only where an integrity finding needs its words.
        left join lateral (
          select q.pass_id, q.pass_number, q.current_content_hash from passes q
          where kept.flags & ${flag.integrity} <> 0 and q.chain_id = r.chain_id and (q.pass_number, q.id) < (r.pass_number, r.id)
          order by q.pass_number desc, q.id desc
          limit 1
        ) as prev on true
        order by r.pass_number, r.id`,
      SERIES_ROW,
    );
  });
  const total = rows[0]?.total ?? 0;
  const flaggedTotal = rows[0]?.flagged_total ?? 0;
  return buildChainSeries(rows, total, flaggedTotal > DOWNSAMPLE.flaggedCap, context);
}
