import "server-only";
import { and, asc, desc, eq, gt, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { getDb, queryRows } from "../index";
import { boundaries, chains, passes, policies } from "../schema";
import { toBoundaryWire } from "./boundaries";
import { findIntegrityIssues, type IntegrityFinding } from "@/lib/chains/integrity";
import { buildChainSeries, type ChainSeries, type SeriesRow } from "@/lib/chains/series";
import { DOWNSAMPLE, PASS_FLAG, passFlags, type FlagInput } from "@/lib/chains/downsample";
import { COLLAPSE_VERDICTS, type CompressionPolicy, type Verdict } from "@/lib/guard/guard";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import type { ChainListQuery, ChainSort, ChainStatus, ChainSummaryWire, CollapsePoint } from "@/lib/schemas/chains";
import type {
  BoundaryWire,
  ChainKey,
  ChainVersion,
  ClassStats,
  PassCursor,
  PassDetail,
  PassPage,
  PassWire,
} from "@/lib/chains/types";

type PassRecord = typeof passes.$inferSelect;
type ChainRecord = typeof chains.$inferSelect;

export function toPassWire(p: PassRecord): PassWire {
  return {
    chain_id: p.chainId,
    pass_id: p.passId,
    pass_number: p.passNumber,
    input_content_hash: p.inputContentHash,
    current_content_hash: p.currentContentHash,
    current_size_bytes: p.currentSizeBytes,
    is_parseable: p.isParseable,
    schema_valid: p.schemaValid,
    semantic_density_score: p.semanticDensityScore,
    content_class: p.contentClass,
    metadata: p.metadata,
    created_at: p.createdAt.toISOString(),
    received_at: p.receivedAt.toISOString(),
    verdict: p.verdict as Verdict,
    directive: p.directive,
    manifest_digest: p.manifestDigest,
    policy_version: p.policyVersion,
    client_verdict: p.clientVerdict,
    client_manifest_digest: p.clientManifestDigest,
    client_mismatch: p.clientMismatch,
  };
}

export interface ChainDetail {
  chain_id: string;
  content_class: string;
  passes: PassWire[];
  boundaries: BoundaryWire[];
  collapse_point: CollapsePoint | null;
  integrity: IntegrityFinding[];
  client_mismatches: number;
}

export async function getChain(chainId: string): Promise<ChainDetail | null> {
  const db = await getDb();
  const [summary, passRows, boundaryRows] = await Promise.all([
    db.select().from(chains).where(eq(chains.chainId, chainId)),
    db.select().from(passes).where(eq(passes.chainId, chainId)).orderBy(asc(passes.passNumber), asc(passes.id)),
    db.select().from(boundaries).where(eq(boundaries.chainId, chainId)).orderBy(asc(boundaries.passNumber)),
  ]);
  if (summary.length === 0 && passRows.length === 0 && boundaryRows.length === 0) return null;
  const wire = passRows.map(toPassWire);
  const collapse = wire.find((p) => COLLAPSE_VERDICTS.has(p.verdict));
  return {
    chain_id: chainId,
    content_class: summary[0]?.contentClass ?? wire.at(-1)?.content_class ?? "default",
    passes: wire,
    boundaries: boundaryRows.map(toBoundaryWire),
    collapse_point: collapse
      ? { pass_id: collapse.pass_id, pass_number: collapse.pass_number, verdict: collapse.verdict }
      : null,
    integrity: findIntegrityIssues(wire),
    client_mismatches: wire.filter((p) => p.client_mismatch).length,
  };
}

export function statusesOf(c: ChainRecord): ChainStatus[] {
  const s: ChainStatus[] = [];
  if (c.hasCollapseImminent) s.push("collapse_imminent");
  if (c.hasFloorBreach) s.push("floor_breached");
  if (c.mismatchCount > 0) s.push("client_mismatch");
  if (c.integrityCount > 0) s.push("broken_integrity");
  return s.length > 0 ? s : ["healthy"];
}

export function toChainSummaryWire(c: ChainRecord): ChainSummaryWire {
  return {
    chain_id: c.chainId,
    content_class: c.contentClass,
    pass_count: c.passCount,
    boundary_count: c.boundaryCount,
    last_pass_id: c.lastPassId,
    last_pass_number: c.lastPassNumber,
    last_verdict: c.lastVerdict as Verdict | null,
    collapse_point:
      c.collapsePassId !== null
        ? { pass_id: c.collapsePassId, pass_number: c.collapsePassNumber!, verdict: c.collapseVerdict as Verdict }
        : null,
    statuses: statusesOf(c),
    client_mismatches: c.mismatchCount,
    integrity_findings: c.integrityCount,
    min_semantic_density: c.minDensity,
    min_size_bytes: c.minSizeBytes,
    first_seen_at: c.firstSeenAt.toISOString(),
    last_activity_at: c.lastActivityAt.toISOString(),
  };
}

const STATUS_FILTER: Record<ChainStatus, SQL> = {
  healthy: sql`not ${chains.hasFloorBreach} and not ${chains.hasCollapseImminent} and ${chains.mismatchCount} = 0 and ${chains.integrityCount} = 0`,
  collapse_imminent: sql`${chains.hasCollapseImminent}`,
  floor_breached: sql`${chains.hasFloorBreach}`,
  client_mismatch: sql`${chains.mismatchCount} > 0`,
  broken_integrity: sql`${chains.integrityCount} > 0`,
};

// Sort keys are never null (coalesced), so one keyset comparison works for every sort. Each
// expression has an index of its own (db/schema/chains.ts): keep the two identical.
const SORT_KEYS: Record<ChainSort, { expr: SQL; fromRow: (c: ChainRecord) => string | number; cast: SQL }> = {
  last_activity: {
    expr: sql`${chains.lastActivityAt}`,
    fromRow: (c) => c.lastActivityAt.toISOString(),
    cast: sql`timestamptz`,
  },
  pass_count: { expr: sql`${chains.passCount}`, fromRow: (c) => c.passCount, cast: sql`integer` },
  min_density: {
    expr: sql`coalesce(${chains.minDensity}, 2)`,
    fromRow: (c) => c.minDensity ?? 2,
    cast: sql`double precision`,
  },
  min_size: {
    expr: sql`coalesce(${chains.minSizeBytes}, 9007199254740991)`,
    fromRow: (c) => c.minSizeBytes ?? Number.MAX_SAFE_INTEGER,
    cast: sql`bigint`,
  },
};

export interface ChainFilter {
  status?: ChainStatus;
  content_class?: string;
  q?: string;
}

function chainFilter(filter: ChainFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.status) where.push(STATUS_FILTER[filter.status]);
  if (filter.content_class) where.push(eq(chains.contentClass, filter.content_class));
  if (filter.q) where.push(sql`${chains.chainId} ilike ${"%" + filter.q.replace(/[\\%_]/g, "\\$&") + "%"}`);
  return where;
}

/**
 * Keyset pages over the chain summaries. `after` is the last row's (sort key, chain id) of
 * the page before; `before` the first row's of the page after, for paging back. `prev` and
 * `next` are the keys to pass on, null at either end (`prev` only when `withPrev`).
 */
export async function listChains(
  query: ChainListQuery & { after?: ChainKey; before?: ChainKey; withPrev?: boolean },
): Promise<{ items: ChainSummaryWire[]; next: ChainKey | null; prev: ChainKey | null }> {
  const db = await getDb();
  const key = SORT_KEYS[query.sort];
  const descending = query.order === "desc";
  const backwards = query.before !== undefined;
  const where = chainFilter(query);
  const beyond = (k: ChainKey, forward: boolean): SQL => {
    const v = sql`${k[0]}::${key.cast}`;
    const later = descending !== !forward;
    return later
      ? or(sql`${key.expr} < ${v}`, and(sql`${key.expr} = ${v}`, lt(chains.chainId, k[1])))!
      : or(sql`${key.expr} > ${v}`, and(sql`${key.expr} = ${v}`, gt(chains.chainId, k[1])))!;
  };
  if (query.after) where.push(beyond(query.after, true));
  if (query.before) where.push(beyond(query.before, false));
  const ascending = descending === backwards;
  const rows = await db
    .select()
    .from(chains)
    .where(where.length ? and(...where) : undefined)
    .orderBy(ascending ? asc(key.expr) : desc(key.expr), ascending ? asc(chains.chainId) : desc(chains.chainId))
    .limit(query.limit + 1);
  const more = rows.length > query.limit;
  // Paging back onto the first page: show it whole, as it looks when reached from the start.
  if (backwards && !more) return listChains({ ...query, before: undefined, after: undefined });
  const page = rows.slice(0, query.limit);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  const keyOf = (c: ChainRecord): ChainKey => [key.fromRow(c), c.chainId];

  let next: ChainKey | null = null;
  let prev: ChainKey | null = null;
  if (backwards) {
    prev = more && first ? keyOf(first) : null;
    next = last ? keyOf(last) : null;
  } else {
    next = more && last ? keyOf(last) : null;
    if (query.withPrev && first && query.after) {
      const [before] = await db
        .select({ chainId: chains.chainId })
        .from(chains)
        .where(and(...chainFilter(query), beyond(keyOf(first), false)))
        .limit(1);
      prev = before ? keyOf(first) : null;
    }
  }
  return { items: page.map(toChainSummaryWire), next, prev };
}

/** Every chain matching a filter, in list order, read in keyset pages so memory stays flat. */
export async function* iterateChains(
  query: ChainFilter & { sort: ChainSort; order: "asc" | "desc" },
  pageSize = 1_000,
): AsyncGenerator<ChainSummaryWire[]> {
  let after: ChainKey | undefined;
  for (;;) {
    const { items, next } = await listChains({ ...query, limit: pageSize, after });
    if (items.length > 0) yield items;
    if (!next) return;
    after = next;
  }
}

/** The content classes chains belong to, read by skipping through the class index rather than scanning chains. */
export async function listChainClasses(): Promise<string[]> {
  const db = await getDb();
  const rows = await queryRows<{ content_class: string }>(
    db,
    sql`
      with recursive classes as (
        (select content_class from chains order by content_class limit 1)
        union all
        select (select c.content_class from chains c where c.content_class > classes.content_class order by c.content_class limit 1)
        from classes where classes.content_class is not null
      )
      select content_class from classes where content_class is not null`,
  );
  return rows.map((r) => r.content_class);
}

// ---- The chain page: a summary, a downsampled series and pages of passes, never all passes.

export async function getChainSummary(chainId: string): Promise<ChainSummaryWire | null> {
  const db = await getDb();
  const [row] = await db.select().from(chains).where(eq(chains.chainId, chainId));
  return row ? toChainSummaryWire(row) : null;
}

export async function listChainBoundaries(chainId: string): Promise<BoundaryWire[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(boundaries)
    .where(eq(boundaries.chainId, chainId))
    .orderBy(asc(boundaries.passNumber));
  return rows.map(toBoundaryWire);
}

interface SeriesSqlRow extends Omit<SeriesRow, "client_mismatch"> {
  client_mismatch: boolean;
  total: number;
  flagged_total: number;
}

/**
 * The floors of every stored policy version as SQL: a `case` over (class, version), the
 * built-in default for a class with no stored version. A chain uses a handful of versions;
 * inlining them keeps the per-pass floor out of a join, whose sort would spill to disk on
 * a chain of 100,000 passes.
 */
async function floorExpressions(p: SQL): Promise<{ size: SQL; density: SQL; maxPass: SQL }> {
  const db = await getDb();
  const rows = await db.select().from(policies);
  const d = CONSERVATIVE_DEFAULT_POLICY;
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
  while (seriesCache.size > SERIES_CACHE_SIZE) seriesCache.delete(seriesCache.keys().next().value!);
  return computing;
}

/**
 * Downsampled series of long chains, by chain and version (pass count, boundary count, last
 * activity). Passes, boundaries and stored policy versions are never changed once written,
 * so an entry is right until the chain's version moves; then the key changes and the entry
 * ages out. Per process: each app instance keeps its own.
 */
const SERIES_CACHE_SIZE = 32;
const globalForSeries = globalThis as unknown as { floorlineSeriesCache?: Map<string, Promise<ChainSeries>> };
const seriesCache = (globalForSeries.floorlineSeriesCache ??= new Map());

async function computeChainSeries(chainId: string, boundaryList: readonly BoundaryWire[]): Promise<ChainSeries> {
  const db = await getDb();
  const boundaryNumbers = JSON.stringify(boundaryList.map((b) => b.pass_number));
  const restoreIds = JSON.stringify(boundaryList.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : [])));
  // Inlined: a bind parameter inside `case` has no type for `|` to work with.
  const flag = Object.fromEntries(Object.entries(PASS_FLAG).map(([k, v]) => [k, sql.raw(String(v))])) as Record<
    keyof typeof PASS_FLAG,
    SQL
  >;
  const floorOfScan = await floorExpressions(sql.raw("p"));
  const floorOfRow = await floorExpressions(sql.raw("r"));
  const rows = await db.transaction(async (tx) => {
    // Sorting and hashing 100,000 narrow rows fits in this; the default (4 MB) spills to disk.
    await tx.execute(sql`set local work_mem = '32MB'`);
    return queryRows<SeriesSqlRow>(
      tx,
      sql`
        with scan as (
          select p.id, p.pass_number, p.current_size_bytes as s, p.semantic_density_score as d, p.client_mismatch,
            row_number() over w as rn,
            p.verdict <> lag(p.verdict) over w as verdict_change,
            p.policy_version <> lag(p.policy_version) over w or p.content_class <> lag(p.content_class) over w as policy_change,
            (p.current_size_bytes < ${floorOfScan.size}) <> lag(p.current_size_bytes < ${floorOfScan.size}) over w as size_crossing,
            (p.semantic_density_score < ${floorOfScan.density}) <> lag(p.semantic_density_score < ${floorOfScan.density}) over w as density_crossing,
            lag(p.pass_number) over w as prev_pn,
            p.input_content_hash is not null and p.input_content_hash <> lag(p.current_content_hash) over w as hash_break,
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
                  or (pass_number = prev_pn + 1 and hash_break) then ${flag.integrity} else 0 end)
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
          r.verdict, r.directive, r.client_verdict, r.client_mismatch, r.content_class, r.policy_version,
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
    );
  });
  const total = rows[0]?.total ?? 0;
  const flaggedTotal = rows[0]?.flagged_total ?? 0;
  return buildChainSeries(
    rows.map((r) => ({ ...r, policy_version: Number(r.policy_version), flags: Number(r.flags) })),
    Number(total),
    Number(flaggedTotal) > DOWNSAMPLE.flaggedCap,
  );
}

/**
 * One page of a chain's passes in chain order, keyset-paged by (pass_number, id). `from`
 * opens the page that starts at a pass number (used to jump to a selected pass).
 */
export async function listChainPasses(
  chainId: string,
  cursor: PassCursor,
  limit: number,
  boundaryList: readonly BoundaryWire[],
): Promise<PassPage> {
  const db = await getDb();
  const key = sql`(${passes.passNumber}, ${passes.id})`;
  const inChain = eq(passes.chainId, chainId);
  const backwards = "before" in cursor;
  let where: SQL | undefined = inChain;
  if ("after" in cursor) where = and(inChain, sql`${key} > (${cursor.after[0]}, ${cursor.after[1]})`);
  if ("before" in cursor) where = and(inChain, sql`${key} < (${cursor.before[0]}, ${cursor.before[1]})`);
  if ("from" in cursor) where = and(inChain, sql`${passes.passNumber} >= ${cursor.from}`);
  const fetched = await db
    .select()
    .from(passes)
    .where(where)
    .orderBy(backwards ? desc(passes.passNumber) : asc(passes.passNumber), backwards ? desc(passes.id) : asc(passes.id))
    .limit(limit + 1);
  const more = fetched.length > limit;
  const page = fetched.slice(0, limit);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  if (!first || !last) return { rows: [], prev: null, next: null };

  // The pass before the page decides the first row's flags, and tells whether there is a previous page.
  const [before, after] = await Promise.all([
    db
      .select()
      .from(passes)
      .where(and(inChain, sql`${key} < (${first.passNumber}, ${first.id})`))
      .orderBy(desc(passes.passNumber), desc(passes.id))
      .limit(1),
    backwards
      ? db
          .select({ id: passes.id })
          .from(passes)
          .where(and(inChain, sql`${key} > (${last.passNumber}, ${last.id})`))
          .limit(1)
      : Promise.resolve(more ? [{ id: 0 }] : []),
  ]);
  const classes = [...new Set([...page, ...before].map((p) => p.contentClass))];
  const floorOf = await policyFloors(classes);
  const boundaryNumbers = new Set(boundaryList.map((b) => b.pass_number));
  const restoreIds = new Set(boundaryList.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : [])));

  let prevInput: FlagInput | null = before[0] ? toFlagInput(before[0], floorOf) : null;
  let prevWire: PassWire | null = before[0] ? toPassWire(before[0]) : null;
  const rows = page.map((p) => {
    const wire = toPassWire(p);
    const input = toFlagInput(p, floorOf);
    const flags = passFlags(prevInput, input, {
      isBoundary: boundaryNumbers.has(p.passNumber) || restoreIds.has(p.passId),
    });
    const integrity =
      flags & PASS_FLAG.integrity
        ? (findIntegrityIssues(prevWire ? [prevWire, wire] : [wire]).find((f) => f.pass_id === p.passId) ?? null)
        : null;
    prevInput = input;
    prevWire = wire;
    return { ...wire, id: p.id, flags, integrity };
  });
  return {
    rows,
    prev: before.length > 0 ? [first.passNumber, first.id] : null,
    next: after.length > 0 ? [last.passNumber, last.id] : null,
  };
}

/** Floors by "class:version" for the given classes, the built-in default under version 0. */
async function policyFloors(
  classes: readonly string[],
): Promise<(contentClass: string, version: number) => CompressionPolicy> {
  const db = await getDb();
  const rows = classes.length
    ? await db
        .select()
        .from(policies)
        .where(inArray(policies.contentClass, [...classes]))
    : [];
  const byKey = new Map(rows.map((r) => [`${r.contentClass}:${r.version}`, r]));
  return (contentClass, version) => {
    const row = byKey.get(`${contentClass}:${version}`);
    return row
      ? {
          min_size_bytes: row.minSizeBytes,
          min_semantic_density: row.minSemanticDensity,
          max_pass_number: row.maxPassNumber,
        }
      : CONSERVATIVE_DEFAULT_POLICY;
  };
}

function toFlagInput(p: PassRecord, floorOf: (contentClass: string, version: number) => CompressionPolicy): FlagInput {
  const floor = floorOf(p.contentClass, p.policyVersion);
  return {
    pass_id: p.passId,
    pass_number: p.passNumber,
    input_content_hash: p.inputContentHash,
    current_content_hash: p.currentContentHash,
    current_size_bytes: p.currentSizeBytes,
    semantic_density_score: p.semanticDensityScore,
    verdict: p.verdict,
    client_mismatch: p.clientMismatch,
    policy_version: p.policyVersion,
    content_class: p.contentClass,
    floor_size: floor.min_size_bytes,
    floor_density: floor.min_semantic_density,
  };
}

export async function getChainPass(chainId: string, passId: string): Promise<PassDetail | null> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(passes)
    .where(and(eq(passes.chainId, chainId), eq(passes.passId, passId)));
  if (!row) return null;
  const floorOf = await policyFloors([row.contentClass]);
  return {
    ...toPassWire(row),
    id: row.id,
    policy: {
      ...floorOf(row.contentClass, row.policyVersion),
      content_class: row.contentClass,
      version: row.policyVersion,
    },
  };
}

export async function countChains(filter: ChainFilter): Promise<number> {
  const db = await getDb();
  const where = chainFilter(filter);
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(chains)
    .where(where.length ? and(...where) : undefined);
  return Number(row.n);
}

/** What changes when a chain receives passes or boundaries: cheap to read every second. */
export async function getChainVersion(chainId: string): Promise<ChainVersion | null> {
  const db = await getDb();
  const [row] = await db
    .select({
      passCount: chains.passCount,
      boundaryCount: chains.boundaryCount,
      lastPassNumber: chains.lastPassNumber,
      lastVerdict: chains.lastVerdict,
      lastActivityAt: chains.lastActivityAt,
    })
    .from(chains)
    .where(eq(chains.chainId, chainId));
  return row
    ? {
        pass_count: row.passCount,
        boundary_count: row.boundaryCount,
        last_pass_number: row.lastPassNumber,
        last_verdict: row.lastVerdict,
        last_activity_at: row.lastActivityAt.toISOString(),
      }
    : null;
}

/** Chains and collapsed chains per content class, from the chain summaries. */
export async function listClassStats(): Promise<ClassStats[]> {
  const db = await getDb();
  const rows = await db
    .select({
      contentClass: chains.contentClass,
      chains: sql<number>`count(*)::int`,
      collapsed: sql<number>`count(${chains.collapsePassId})::int`,
    })
    .from(chains)
    .groupBy(chains.contentClass)
    .orderBy(chains.contentClass);
  return rows.map((r) => ({ content_class: r.contentClass, chains: Number(r.chains), collapsed: Number(r.collapsed) }));
}
