// The CCR store as a table: keyset pages of summaries. Never reads the texts, never counts
// as a retrieval.
import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb, queryRows } from "../index";
import type { OriginalListQuery, OriginalSort } from "@/lib/schemas/originals";
import type { OriginalSummaryWire } from "@/lib/ccr/types";
import {
  type CcrOptions,
  SUMMARY_COLUMNS,
  type RawRow,
  iso,
  toSummaryWire,
  startsWith,
  statusExpr,
} from "./originals-shared";

const SORT_EXPR: Record<OriginalSort, { expr: SQL; cast: "timestamptz" | "bigint" }> = {
  created: { expr: sql`created_at`, cast: "timestamptz" },
  // Never-retrieved entries sort as the oldest retrievals.
  last_retrieved: { expr: sql`coalesce(last_retrieved_at, 'epoch'::timestamptz)`, cast: "timestamptz" },
  size: { expr: sql`size_bytes`, cast: "bigint" },
  retrievals: { expr: sql`retrieval_count`, cast: "bigint" },
};

export type OriginalListFilter = Omit<OriginalListQuery, "cursor">;

export async function listOriginals(
  query: OriginalListFilter,
  after: [string | number, string] | undefined,
  options: CcrOptions = {},
): Promise<{ items: OriginalSummaryWire[]; next: [string | number, string] | null }> {
  const now = options.now ?? new Date();
  const db = await getDb();
  const where: SQL[] = [];
  if (query.status === "gone") where.push(sql`${statusExpr(now)} <> 'live'`);
  else if (query.status) where.push(sql`${statusExpr(now)} = ${query.status}`);
  if (query.content_type) where.push(sql`content_type = ${query.content_type}`);
  if (query.tool_name) where.push(sql`tool_name = ${query.tool_name}`);
  if (query.chain_id) where.push(sql`chain_id = ${query.chain_id}`);
  if (query.q) {
    const q = query.q.trim();
    const pattern = "%" + q.replace(/[\\%_]/g, "\\$&") + "%";
    const hexPrefix = /^[0-9a-fA-F]+$/.test(q) ? sql`${startsWith(q.toLowerCase())} or ` : sql``;
    where.push(sql`(${hexPrefix}tool_name ilike ${pattern} or chain_id ilike ${pattern} or pass_id ilike ${pattern})`);
  }
  const { expr, cast } = SORT_EXPR[query.sort];
  const dir = query.order === "asc" ? sql`asc` : sql`desc`;
  if (after) {
    const [value, hash] = after;
    const op = query.order === "asc" ? sql`>` : sql`<`;
    where.push(sql`(${expr}, hash) ${op} (${String(value)}::${sql.raw(cast)}, ${hash})`);
  }
  const rows = await queryRows<RawRow & { sort_key: unknown }>(
    db,
    sql`
      select ${SUMMARY_COLUMNS}, ${expr} as sort_key from originals
      ${where.length ? sql`where ${sql.join(where, sql` and `)}` : sql``}
      order by ${expr} ${dir}, hash ${dir}
      limit ${query.limit + 1}`,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const keyOf = (r: RawRow & { sort_key: unknown }): string | number =>
    cast === "timestamptz" ? iso(r.sort_key)! : Number(r.sort_key);
  return {
    items: page.map((r) => toSummaryWire(r, now)),
    next: rows.length > query.limit && last ? [keyOf(last), last.hash as string] : null,
  };
}
