// The dashboard's own reads: they neither count as retrievals nor refresh recency, so an
// operator looking at an entry never keeps it alive or skews the agents' numbers.
import "server-only";
import { sql } from "drizzle-orm";
import { col, queryRows } from "../../sql";
import { getReadDb } from "../../index";
import type { OriginalStatus } from "@/lib/schemas/originals";
import { formatMarker, markerKey, parseHashKey } from "@/lib/originals/rules";
import type { OriginalSummaryWire } from "@/lib/schemas/originals";
import { type OriginalsOptions, SUMMARY_COLUMNS, SUMMARY_ROW, toSummaryWire, ts } from "./shared";
import { resolveKey } from "./retrieve";

export type OriginalLookup =
  | {
      kind: "found";
      original: OriginalSummaryWire & {
        marker: string;
        original_chars: number | null;
        compressed_chars: number | null;
      };
    }
  | { kind: "ambiguous"; candidates: { hash: string; tenant: string; status: OriginalStatus }[] }
  | { kind: "unknown" };

/** The entry a key names, in `tenant` or (when absent) in any tenant, as `resolveKey` picks. */
export async function getOriginalForView(
  rawKey: string,
  options: OriginalsOptions & { tenant?: string } = {},
): Promise<OriginalLookup> {
  const now = options.now ?? new Date();
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) return { kind: "unknown" };
  const db = await getReadDb();
  const resolved = await resolveKey(db, parsed.key, options.tenant ?? null);
  if (resolved === null) return { kind: "unknown" };
  if ("ambiguous" in resolved) return { kind: "ambiguous", candidates: resolved.ambiguous };
  const [row] = await queryRows(
    db,
    sql`select ${SUMMARY_COLUMNS}, length(original) as original_chars, length(compressed) as compressed_chars from originals where tenant = ${resolved.tenant} and hash = ${resolved.hash}`,
    { ...SUMMARY_ROW, original_chars: col.int.nullable(), compressed_chars: col.int.nullable() },
  );
  if (!row) return { kind: "unknown" };
  const summary = toSummaryWire(row, now);
  return {
    kind: "found",
    original: {
      ...summary,
      marker: formatMarker(markerKey(summary.hash), summary.original_items, summary.compressed_items),
      original_chars: summary.status === "live" ? row.original_chars : null,
      compressed_chars: summary.status === "live" ? row.compressed_chars : null,
    },
  };
}

/** Whether a key names anything the original page shows: an entry, a tombstone, or several (ambiguous). */
export async function originalKeyExists(rawKey: string): Promise<boolean> {
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) return false;
  return (await resolveKey(await getReadDb(), parsed.key, null)) !== null;
}

export type OriginalPart = "original" | "compressed";

/**
 * A slice of one side of a live entry, in characters (code points, as Postgres counts
 * them), so the detail page pages through a 32 MiB original instead of loading it whole.
 * Without `length`, the whole text.
 */
export async function getOriginalText(
  hash: string,
  part: OriginalPart,
  slice: { offset: number; length: number } | null,
  options: OriginalsOptions & { tenant?: string } = {},
): Promise<{ text: string; total_chars: number; offset: number; content_type: string | null } | null> {
  const now = options.now ?? new Date();
  const db = await getReadDb();
  const column = sql.raw(part === "original" ? "original" : "compressed");
  const text = slice ? sql`substring(${column} from ${slice.offset + 1}::int for ${slice.length}::int)` : column;
  const [row] = await queryRows(
    db,
    sql`
      select ${text} as text, length(${column}) as total_chars, content_type from originals
      where hash = ${hash} and status = 'live' and (expires_at is null or expires_at > ${ts(now)})
        ${options.tenant === undefined ? sql`` : sql`and tenant = ${options.tenant}`}
      order by (tenant = '') desc, created_at desc limit 1`,
    { text: col.text.nullable(), total_chars: col.int.nullable(), content_type: col.text.nullable() },
  );
  if (!row || row.text === null || row.total_chars === null) return null;
  return {
    text: row.text,
    total_chars: row.total_chars,
    offset: slice?.offset ?? 0,
    content_type: row.content_type,
  };
}
