import "server-only";
import { sql } from "drizzle-orm";
import { type Executor, getDb, queryRows } from "../index";
import { type ChainColumns, unpackChains } from "@/lib/recommend";

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
            string_agg(case when is_parseable and schema_valid then '0' else '1' end, '') as br
          from (
            select chain_id, pass_number, current_size_bytes, semantic_density_score, is_parseable, schema_valid
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
