import "server-only";
import { sql } from "drizzle-orm";
import { type Executor, getDb, queryRows } from "../index";
import {
  type ChainColumns,
  type RecommendationResult,
  type RecordedChain,
  type RecordedStrategy,
  recommendFloors,
  unpackChains,
} from "@/lib/recommend";
import { getPolicy } from "./policies";

interface PackedRow {
  // json, not a joined string: a chain id may hold any character but NUL.
  ids: string[] | string | null;
  counts: number[] | string | null;
  pass_numbers: Uint8Array | null;
  sizes: Uint8Array | null;
  densities: Uint8Array | null;
  broken: string | null;
}

/**
 * Every recorded chain of a content class (its passes of that class), in replay order, in
 * two set-based queries. The passes come back as one row of columns rather than a row per
 * pass: a million passes are three byte strings of 8-byte numbers and one string of flags,
 * which decode in milliseconds where a million row objects would take seconds. The inner
 * select walks passes_chain_number_idx, so chains arrive whole and their passes in order
 * without a sort.
 */
export async function getClassChains(contentClass: string, executor?: Executor): Promise<ChainColumns> {
  const db = executor ?? (await getDb());
  const [[row], boundaries] = await Promise.all([
    queryRows<PackedRow>(
      db,
      sql`
        select json_agg(chain_id) as ids, json_agg(n) as counts,
          string_agg(pn, ''::bytea) as pass_numbers, string_agg(sz, ''::bytea) as sizes,
          string_agg(de, ''::bytea) as densities, string_agg(br, '') as broken
        from (
          select chain_id, count(*) as n,
            string_agg(int8send(pass_number), ''::bytea) as pn,
            string_agg(int8send(current_size_bytes), ''::bytea) as sz,
            string_agg(float8send(semantic_density_score), ''::bytea) as de,
            string_agg(case when is_parseable and schema_valid and checked_ok then '0' else '1' end, '') as br
          from (
            select chain_id, pass_number, current_size_bytes, semantic_density_score, is_parseable, schema_valid,
              -- What the server found when it checked the content counts as much as the claim.
              coalesce((server_checks->>'parseable')::boolean and (server_checks->>'schema_valid')::boolean, true)
                as checked_ok
            from passes where content_class = ${contentClass}
            order by chain_id, pass_number, id
          ) as ordered
          group by chain_id
        ) as per_chain`,
    ),
    queryRows<{ chain_id: string; pass_number: number | string }>(
      db,
      sql`
        select b.chain_id, min(b.pass_number) as pass_number
        from boundaries b join chains c on c.chain_id = b.chain_id
        where c.content_class = ${contentClass} and b.strategy in ('restore', 'accept_loss')
        group by b.chain_id`,
    ),
  ]);
  const bytes = (value: Uint8Array | null) => value ?? new Uint8Array(0);
  const array = <T>(value: T[] | string | null | undefined): T[] =>
    value == null ? [] : typeof value === "string" ? (JSON.parse(value) as T[]) : value;
  return unpackChains({
    chainIds: array(row?.ids),
    passCounts: array(row?.counts).map(Number),
    passNumbers: bytes(row?.pass_numbers ?? null),
    sizes: bytes(row?.sizes ?? null),
    densities: bytes(row?.densities ?? null),
    broken: row?.broken ?? "",
    failureBoundaries: new Map(boundaries.map((b) => [b.chain_id, Number(b.pass_number)])),
  });
}

/**
 * One chain's passes of a class and its failure boundaries, for a replay through the guard
 * (the chain page's "which option would have caught it").
 */
export async function getRecordedChain(chainId: string, contentClass: string): Promise<RecordedChain | null> {
  const db = await getDb();
  const [passes, boundaries] = await Promise.all([
    queryRows<{
      pass_id: string;
      pass_number: number | string;
      current_content_hash: string;
      current_size_bytes: number | string;
      semantic_density_score: number;
      is_parseable: boolean;
      schema_valid: boolean;
      checked_parseable: boolean | null;
      checked_schema_valid: boolean | null;
    }>(
      db,
      sql`select pass_id, pass_number, current_content_hash, current_size_bytes, semantic_density_score,
            is_parseable, schema_valid, (server_checks->>'parseable')::boolean as checked_parseable,
            (server_checks->>'schema_valid')::boolean as checked_schema_valid
          from passes where chain_id = ${chainId} and content_class = ${contentClass}
          order by pass_number, id`,
    ),
    queryRows<{ pass_number: number | string; strategy: RecordedStrategy }>(
      db,
      sql`select pass_number, strategy from boundaries where chain_id = ${chainId}`,
    ),
  ]);
  if (passes.length === 0) return null;
  return {
    chain_id: chainId,
    passes: passes.map(({ checked_parseable, checked_schema_valid, ...p }) => ({
      ...p,
      pass_number: Number(p.pass_number),
      current_size_bytes: Number(p.current_size_bytes),
      checked:
        checked_parseable === null || checked_schema_valid === null
          ? null
          : { parseable: checked_parseable, schema_valid: checked_schema_valid },
    })),
    boundaries: boundaries.map((b) => ({ pass_number: Number(b.pass_number), strategy: b.strategy })),
  };
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
  const db = await getDb();
  const [[stamp], policy] = await Promise.all([
    queryRows<{ n: number | string; last: string | Date | null; boundaries: number | string | null }>(
      db,
      sql`select count(*) as n, max(last_activity_at) as last, sum(boundary_count) as boundaries
          from chains where content_class = ${contentClass}`,
    ),
    getPolicy(contentClass),
  ]);
  const key = JSON.stringify([stamp?.n, String(stamp?.last), stamp?.boundaries, policy.version]);
  const hit = cache.get(contentClass);
  if (hit?.key === key) return hit.result;
  const result = recommendFloors(await getClassChains(contentClass), policy);
  cache.set(contentClass, { key, result });
  return result;
}
