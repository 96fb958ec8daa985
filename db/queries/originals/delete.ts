// Deleting originals: one entry by its key, or every entry of a tenant. A deleted entry keeps
// its tombstone (evicted, with the deletion as its reason), so the key still explains itself.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { col, columnList, queryRows, type RowOf } from "../../sql";
import type { Executor } from "../../types";
import { ApiError } from "@/lib/errors";
import { deletionReason, expiryReason, requireHashKey, unknownMessage } from "@/lib/originals/rules";
import { type ClearResultWire, type DeleteResultWire, ORIGINAL_STATUSES } from "@/lib/schemas/originals";
import { DEFAULT_TENANT, type OriginalsOptions } from "./shared";
import { tombstone } from "./eviction";
import { resolveKey } from "./retrieve";

/**
 * Tombstones live rows: those past their TTL as expired (what they already were), the others
 * as evicted by the client. Returns the rows the client's deletion removed.
 */
async function removeLive(tx: Executor, rows: LiveRow[], now: Date, route: string) {
  const expired: { tenant: string; hash: string; goneAt: Date; reason: string }[] = [];
  const live: LiveRow[] = [];
  for (const r of rows) {
    if (r.expires_at !== null && r.expires_at <= now) {
      expired.push({
        tenant: r.tenant,
        hash: r.hash,
        goneAt: r.expires_at,
        reason: expiryReason(r.ttl_seconds, r.expires_at),
      });
    } else live.push(r);
  }
  await tombstone(tx, "expired", expired);
  return tombstone(
    tx,
    "evicted",
    live.map((r) => ({ tenant: r.tenant, hash: r.hash, goneAt: now, reason: deletionReason(route, now) })),
    "deleted",
  );
}

const LIVE_ROW = {
  tenant: col.text,
  hash: col.text,
  status: col.oneOf(ORIGINAL_STATUSES),
  expires_at: col.date.nullable(),
  ttl_seconds: col.int.nullable(),
};
type LiveRow = RowOf<typeof LIVE_ROW>;
const LIVE_COLUMNS = columnList(LIVE_ROW);

/**
 * Deletes one tenant's entry by its key (full hash, unique prefix or alternate key). Deleting
 * an entry that is already gone changes nothing and says so (`deleted: false`); a key never
 * stored under this tenant is 404, an ambiguous prefix 409. No retrieval or miss is counted.
 */
export async function deleteOriginal(
  rawKey: string,
  options: OriginalsOptions & { tenant?: string } = {},
): Promise<DeleteResultWire> {
  const now = options.now ?? new Date();
  const tenant = options.tenant ?? DEFAULT_TENANT;
  const parsed = requireHashKey(rawKey);
  const db = await getDb();
  return db.transaction(async (tx) => {
    const resolved = await resolveKey(tx, parsed.key, tenant);
    if (resolved === null) {
      throw new ApiError("unknown_hash", unknownMessage(parsed.key), { extra: { hash: parsed.key, tenant } });
    }
    if ("ambiguous" in resolved) {
      throw new ApiError(
        "ambiguous_hash",
        `The prefix ${parsed.key} matches ${resolved.ambiguous.length} originals of this tenant; send the full hash to delete one.`,
        { extra: { hash: parsed.key, candidates: resolved.ambiguous } },
      );
    }
    const [row] = await queryRows(
      tx,
      sql`select ${LIVE_COLUMNS} from originals where tenant = ${tenant} and hash = ${resolved.hash} for update`,
      LIVE_ROW,
    );
    if (!row) throw new ApiError("unknown_hash", unknownMessage(parsed.key), { extra: { hash: parsed.key, tenant } });
    if (row.status !== "live") {
      return { hash: resolved.hash, tenant, deleted: false, status: row.status };
    }
    const removed = await removeLive(tx, [row], now, "DELETE /api/v1/originals/{hash}");
    return {
      hash: resolved.hash,
      tenant,
      deleted: removed.length > 0,
      status: removed.length > 0 ? "evicted" : "expired",
    };
  });
}

/** Deletes every live entry of one tenant, in one transaction; other tenants keep theirs. */
export async function clearTenant(tenant: string, options: OriginalsOptions = {}): Promise<ClearResultWire> {
  const now = options.now ?? new Date();
  const db = await getDb();
  return db.transaction(async (tx) => {
    const rows = await queryRows(
      tx,
      sql`select ${LIVE_COLUMNS} from originals where tenant = ${tenant} and status = 'live' order by hash for update`,
      LIVE_ROW,
    );
    const removed = await removeLive(tx, rows, now, "DELETE /api/v1/originals?tenant=");
    return { tenant, deleted: removed.length, deleted_bytes: removed.reduce((sum, r) => sum + r.bytes, 0) };
  });
}
