// The CCR store as a table: keyset pages of summaries. Never reads the texts, never counts
// as a retrieval.
import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { col, onlyRow, queryRows, type RowOf } from "../../sql";
import { getDb, getReadDb } from "../../index";
import { keysetDirection, keysetPage } from "../../keyset";
import type {
  OriginalCountQuery,
  OriginalCountWire,
  OriginalKey,
  OriginalListQuery,
  OriginalSort,
} from "@/lib/schemas/originals";
import type { OriginalSummaryWire } from "@/lib/schemas/originals";
import { FULL_HASH_LENGTH } from "@/lib/originals/rules";
import {
  type OriginalsOptions,
  SUMMARY_COLUMNS,
  SUMMARY_ROW,
  toSummaryWire,
  startsWith,
  altStartsWith,
  statusExpr,
} from "./shared";

const SORT_EXPR: Record<OriginalSort, { expr: SQL; cast: "timestamptz" | "bigint" }> = {
  created: { expr: sql`created_at`, cast: "timestamptz" },
  // Never-retrieved entries sort as the oldest retrievals.
  last_retrieved: { expr: sql`coalesce(last_retrieved_at, 'epoch'::timestamptz)`, cast: "timestamptz" },
  size: { expr: sql`size_bytes`, cast: "bigint" },
  retrievals: { expr: sql`retrieval_count`, cast: "bigint" },
};

export type OriginalListFilter = Omit<OriginalListQuery, "cursor">;

/** The conditions of the list's filters, shared by the list and the count. */
function filterConditions(query: OriginalCountQuery & { q?: string }, now: Date): SQL[] {
  const where: SQL[] = [];
  if (query.status === "gone") where.push(sql`${statusExpr(now)} <> 'live'`);
  else if (query.status) where.push(sql`${statusExpr(now)} = ${query.status}`);
  if (query.tenant !== undefined) where.push(sql`tenant = ${query.tenant}`);
  if (query.key) {
    const own = query.key.length === FULL_HASH_LENGTH ? sql`hash = ${query.key}` : startsWith(query.key);
    where.push(sql`(${own} or ${altStartsWith(query.key)})`);
  }
  if (query.content_type) where.push(sql`content_type = ${query.content_type}`);
  if (query.tool_name) where.push(sql`tool_name = ${query.tool_name}`);
  if (query.chain_id) where.push(sql`chain_id = ${query.chain_id}`);
  if (query.q) {
    const q = query.q.trim();
    const pattern = "%" + q.replace(/[\\%_]/g, "\\$&") + "%";
    const hexPrefix = /^[0-9a-fA-F]+$/.test(q) ? sql`${startsWith(q.toLowerCase())} or ` : sql``;
    where.push(sql`(${hexPrefix}tool_name ilike ${pattern} or chain_id ilike ${pattern} or pass_id ilike ${pattern})`);
  }
  return where;
}

/** How many entries the filters match, and the bytes they hold (original plus compressed text). */
export async function countOriginals(
  query: OriginalCountQuery,
  options: OriginalsOptions = {},
): Promise<OriginalCountWire> {
  const now = options.now ?? new Date();
  // The primary: a client counts what it has just stored.
  const db = await getDb();
  const where = filterConditions(query, now);
  const row = onlyRow(
    await queryRows(
      db,
      sql`select count(*) as n, coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)), 0) as bytes from originals
        ${where.length ? sql`where ${sql.join(where, sql` and `)}` : sql``}`,
      { n: col.int, bytes: col.int },
    ),
  );
  return { count: row.n, bytes: row.bytes };
}

export async function listOriginals(
  query: OriginalListFilter,
  after: OriginalKey | undefined,
  options: OriginalsOptions = {},
): Promise<{ items: OriginalSummaryWire[]; next: OriginalKey | null }> {
  const now = options.now ?? new Date();
  const db = await getReadDb();
  const where = filterConditions(query, now);
  const { expr, cast } = SORT_EXPR[query.sort];
  const row = { ...SUMMARY_ROW, sort_key: cast === "timestamptz" ? col.date : col.int };
  const page = await keysetPage<RowOf<typeof row>, OriginalKey>({
    limit: query.limit,
    after,
    keyOf: (r) => [r.sort_key instanceof Date ? r.sort_key.toISOString() : r.sort_key, r.hash, r.tenant],
    neighbours: "none",
    read: (from, forward, limit) => {
      const { op, asc } = keysetDirection(query.order === "desc", forward);
      const dir = asc ? sql`asc` : sql`desc`;
      const position = from
        ? [sql`(${expr}, hash, tenant) ${op} (${String(from[0])}::${sql.raw(cast)}, ${from[1]}, ${from[2] ?? ""})`]
        : [];
      const conditions = [...where, ...position];
      return queryRows(
        db,
        sql`
          select ${SUMMARY_COLUMNS}, ${expr} as sort_key from originals
          ${conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``}
          order by ${expr} ${dir}, hash ${dir}, tenant ${dir}
          limit ${limit}`,
        row,
      );
    },
  });
  return { items: page.items.map((r) => toSummaryWire(r, now)), next: page.next };
}
