import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "../types";
import { getDb, getHandle, getSettledDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import { type CompressionPolicy, evaluatePass } from "@/lib/guard/guard";
import {
  type ChainColumns,
  concatColumns,
  type OptionCatch,
  type RecommendationResult,
  recommendFloors,
  unpackChains,
} from "@/lib/recommend";
import { chainStatusCondition } from "./chains";
import { getPolicy } from "./policies";

/**
 * Ranges of chain ids read at once on PostgreSQL: each is a query on its own connection, so
 * the server reads and packs a large class on several cores. The embedded database runs one
 * statement at a time, so there the class is read whole.
 */
const PARALLEL_READS = 4;

/**
 * Every recorded chain of a content class (its passes of that class), in replay order: the
 * class is read in ranges of chain ids, in parallel on PostgreSQL, and the ranges joined in
 * order, so the columns are the same as one read of the whole class would give.
 */
export async function getClassChains(contentClass: string, executor?: Executor): Promise<ChainColumns> {
  const handle = executor ? null : await getHandle();
  const db = executor ?? (await getDb());
  const parts = handle?.driver === "postgres" ? PARALLEL_READS : 1;
  const [bounds, boundaries, measured, guarded] = await Promise.all([
    parts > 1 ? chainIdBounds(db, contentClass, parts) : Promise.resolve([]),
    queryRows(
      db,
      sql`
        select b.chain_id, min(b.pass_number) as pass_number
        from boundaries b join chains c on c.chain_id = b.chain_id
        where c.content_class = ${contentClass} and b.strategy in ('restore', 'accept_loss')
        group by b.chain_id`,
      { chain_id: col.text, pass_number: col.int },
    ),
    followsMeasurement(db, contentClass),
    // The class's saves: where the guard stopped each (its collapse point), through chains_class_activity_idx.
    queryRows(
      db,
      sql`select chain_id, collapse_pass_number as pass_number from chains
          where content_class = ${contentClass} and ${chainStatusCondition("guarded")} and collapse_pass_number is not null`,
      { chain_id: col.text, pass_number: col.int },
    ),
  ]);
  const failureBoundaries = new Map(boundaries.map((b) => [b.chain_id, b.pass_number]));
  const guardedAt = new Map(guarded.map((g) => [g.chain_id, g.pass_number]));
  return readClassChains(db, contentClass, bounds, failureBoundaries, measured, guardedAt);
}

/** Whether the class's policy in force says `density_source: measured` (docs/measurement.md). */
async function followsMeasurement(db: Executor, contentClass: string): Promise<boolean> {
  const [row] = await queryRows(
    db,
    sql`select density_source from policies where content_class = ${contentClass} order by version desc limit 1`,
    { density_source: col.text },
  );
  return row?.density_source === "measured";
}

/**
 * The density a replay uses: the client's claim, or, for a class that follows measurement,
 * the measured density wherever the server measured the pass (the claim elsewhere).
 */
const densityOf = (measured: boolean) =>
  measured ? sql`coalesce(measured_density, semantic_density_score)` : sql`semantic_density_score`;

/**
 * Chain ids that cut a class's passes into about `parts` ranges of equal size, ascending in
 * the server's order, from a small sample of the table's pages: where they fall changes only
 * how evenly the work is shared, never what is read. None for a class too small to sample.
 */
async function chainIdBounds(db: Executor, contentClass: string, parts: number): Promise<string[]> {
  const fractions = Array.from({ length: parts - 1 }, (_, i) => (i + 1) / parts);
  const row = onlyRow(
    await queryRows(
      db,
      sql`
      select percentile_disc(${`{${fractions.join(",")}}`}::float8[]) within group (order by chain_id) as bounds,
        count(*) as sampled
      from passes tablesample system (0.5) repeatable (0)
      where content_class = ${contentClass}`,
      { bounds: col.textArray.nullable(), sampled: col.int },
    ),
  );
  const { bounds } = row;
  if (!bounds || row.sampled < parts * 10) return [];
  return bounds.filter((b, i) => i === 0 || b !== bounds[i - 1]);
}

/** One range of a class's chains, packed (readClassChains); every column is null for no chains. */
const PACKED_ROW = {
  // json, not a joined string: a chain id may hold any character but NUL.
  ids: col.jsonArrayOf(col.text),
  counts: col.jsonArrayOf(col.int),
  pass_numbers: col.text.nullable(),
  sizes: col.text.nullable(),
  densities: col.bytes.nullable(),
  broken: col.text.nullable(),
};

/**
 * A class's chains in replay order, read as len(bounds) + 1 ranges of chain ids at once
 * (below bounds[0], from bounds[0] below bounds[1], ..., from the last on), each unpacked as
 * it arrives and all joined in that order. Each range comes back as one row of columns
 * rather than a row per pass: a million passes are two strings of decimal integers, one byte
 * string of 8-byte doubles and one string of flags, which decode in tens of milliseconds
 * where a million row objects would take seconds. Integers travel as text because the
 * server writes them faster than int8send builds a byte string per value; densities as
 * float8send, exact whatever extra_float_digits says. The inner select is an index-only scan
 * of passes_class_chain_idx (every column it reads is in the index, content_broken
 * included), so chains arrive whole and their passes in order without a sort or a visit to
 * the table. A chain lies in one range, so each chain is read at one moment even if the
 * ranges are read at slightly different ones.
 */
export async function readClassChains(
  db: Executor,
  contentClass: string,
  bounds: readonly string[],
  failureBoundaries: ReadonlyMap<string, number>,
  /** Replay on measured density where there is one (a class with `density_source: measured`). */
  measured = false,
  /** The guarded chains' floors (`RecordedChain.guarded_at`). */
  guarded: ReadonlyMap<string, number> = new Map(),
): Promise<ChainColumns> {
  const ranges = Array.from({ length: bounds.length + 1 }, (_, i) => [bounds[i - 1], bounds[i]] as const);
  const parts = await Promise.all(
    ranges.map(async ([from, below]) => {
      const row = onlyRow(
        await queryRows(
          db,
          sql`
          select json_agg(chain_id) as ids, json_agg(n) as counts,
            string_agg(pn, ',') as pass_numbers, string_agg(sz, ',') as sizes,
            string_agg(de, ''::bytea) as densities, string_agg(br, '') as broken
          from (
            select chain_id, count(*) as n,
              string_agg(pass_number::text, ',') as pn,
              string_agg(current_size_bytes::text, ',') as sz,
              string_agg(float8send(semantic_density_score), ''::bytea) as de,
              string_agg(case when content_broken then '1' else '0' end, '') as br
            from (
              select chain_id, pass_number, current_size_bytes, ${densityOf(measured)} as semantic_density_score,
                content_broken
              from passes
              where content_class = ${contentClass}
                ${from === undefined ? sql`` : sql`and chain_id >= ${from}`}
                ${below === undefined ? sql`` : sql`and chain_id < ${below}`}
              order by chain_id, pass_number, id
            ) as ordered
            group by chain_id
          ) as per_chain`,
          PACKED_ROW,
        ),
      );
      return unpackChains({
        chainIds: row.ids,
        passCounts: row.counts,
        passNumbers: row.pass_numbers ?? "",
        sizes: row.sizes ?? "",
        densities: row.densities ?? new Uint8Array(0),
        broken: row.broken ?? "",
        failureBoundaries,
        guarded,
      });
    }),
  );
  return concatColumns(parts);
}

/**
 * The pass number of a chain's failure in a class (its first broken pass or its first restore
 * / accept_loss boundary, as `failureOf` finds it), found in the database; null for a healthy
 * chain, a guarded one (a save, not a failure) or one with no pass of the class.
 */
export async function getChainFailure(chainId: string, contentClass: string): Promise<number | null> {
  const db = await getDb();
  // `isBroken`: refused by the client, or by the server's checks when it made both.
  const { failure } = onlyRow(
    await queryRows(
      db,
      sql`select case when exists (select 1 from passes where chain_id = ${chainId} and content_class = ${contentClass})
          and not exists (select 1 from chains where chain_id = ${chainId} and ${chainStatusCondition("guarded")})
        then least(
          (select pass_number from passes where chain_id = ${chainId} and content_class = ${contentClass}
            and (not is_parseable or not schema_valid or (
              server_checks->>'parseable' is not null and server_checks->>'schema_valid' is not null
              and not ((server_checks->>'parseable')::boolean and (server_checks->>'schema_valid')::boolean)))
            order by pass_number limit 1),
          (select min(pass_number) from boundaries where chain_id = ${chainId} and strategy in ('restore', 'accept_loss')))
        end as failure`,
      { failure: col.int.nullable() },
    ),
  );
  return failure;
}

/**
 * For a chain failing at `failure`, what each floor would have done to it (the chain page's
 * "which option would have caught it"), as `catchesOf` finds by replaying the chain through
 * the guard. The database finds, per floor, the first pass up to the failure that the guard
 * would not let through, in replay order; only that pass goes through the guard, for its
 * verdict and directive. A chain of a hundred thousand passes is never read into the app.
 */
export async function getChainCatches(
  chainId: string,
  contentClass: string,
  failure: number,
  options: readonly { name: string; policy: CompressionPolicy }[],
): Promise<OptionCatch[]> {
  if (options.length === 0) return [];
  const db = await getDb();
  const density = densityOf(await followsMeasurement(db, contentClass));
  // Per floor, the guard's halt conditions (evaluatePass: any pass after the first that is past
  // the pass limit, unparseable or schema-invalid as the client said, or under the size or
  // density floor), first in replay order: by pass number, ties in recorded order.
  const halts = await queryRows(
    db,
    sql`select o.i, h.pass_id, h.pass_number, h.current_content_hash, h.current_size_bytes, h.semantic_density_score,
          h.is_parseable, h.schema_valid
        from unnest(${`{${options.map((o) => o.policy.max_pass_number).join(",")}}`}::float8[],
                    ${`{${options.map((o) => o.policy.min_size_bytes).join(",")}}`}::float8[],
                    ${`{${options.map((o) => o.policy.min_semantic_density).join(",")}}`}::float8[])
          with ordinality as o(max_pass, min_size, min_density, i)
        left join lateral (
          select pass_id, pass_number, current_content_hash, current_size_bytes, ${density} as semantic_density_score,
            is_parseable, schema_valid
          from passes
          where chain_id = ${chainId} and content_class = ${contentClass}
            and pass_number <= ${failure} and pass_number > 1
            and (pass_number > o.max_pass or not is_parseable or not schema_valid
              or current_size_bytes < o.min_size or ${density} < o.min_density)
          order by pass_number, id
          limit 1
        ) as h on true
        order by o.i`,
    {
      i: col.int,
      pass_id: col.text.nullable(),
      pass_number: col.int.nullable(),
      current_content_hash: col.text.nullable(),
      current_size_bytes: col.int.nullable(),
      semantic_density_score: col.number.nullable(),
      is_parseable: col.bool.nullable(),
      schema_valid: col.bool.nullable(),
    },
  );
  return options.map(({ name, policy }, i) => {
    const h = halts[i];
    if (!h || h.pass_id === null || h.pass_number === null) return { name, policy, caught: false, halt: null };
    const pass = {
      pass_id: h.pass_id,
      pass_number: h.pass_number,
      current_content_hash: h.current_content_hash ?? "",
      current_size_bytes: h.current_size_bytes ?? 0,
      is_parseable: h.is_parseable === true,
      schema_valid: h.schema_valid === true,
      semantic_density_score: h.semantic_density_score ?? 0,
    };
    const { verdict, directive } = evaluatePass(pass, policy);
    return {
      name,
      policy,
      caught: pass.pass_number < failure,
      halt: { pass_id: pass.pass_id, pass_number: pass.pass_number, verdict, directive },
    };
  });
}

interface CachedRecommendation {
  key: string;
  result: RecommendationResult;
}
const cache = new Map<string, CachedRecommendation>();

/**
 * The class's recommendation for pages, which show it beside other things: recomputed only
 * when the class's chains or its policy changed (a count and the latest activity of its
 * chains, read from chains_class_activity_idx, and the policy version). The API always
 * computes afresh.
 */
export async function getCachedRecommendation(contentClass: string): Promise<RecommendationResult> {
  const db = await getSettledDb();
  const [[stamp], policy] = await Promise.all([
    queryRows(
      db,
      sql`select count(*) as n, max(last_activity_at) as last, sum(boundary_count) as boundaries
          from chains where content_class = ${contentClass}`,
      { n: col.int, last: col.date.nullable(), boundaries: col.int.nullable() },
    ),
    getPolicy(contentClass),
  ]);
  const key = JSON.stringify([stamp?.n, stamp?.last?.getTime(), stamp?.boundaries, policy.version]);
  const hit = cache.get(contentClass);
  if (hit?.key === key) return hit.result;
  const result = recommendFloors(await getClassChains(contentClass), policy);
  cache.set(contentClass, { key, result });
  return result;
}
