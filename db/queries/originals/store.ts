// Storing originals: dedup by hash, TTLs, the size cap, then the budget.
import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../../index";
import { onlyRow, queryRows } from "../../sql";
import type { Executor } from "../../types";
import { originals } from "../../schema";
import { ApiError } from "@/lib/errors";
import { sha256Hex } from "@/lib/guard/hash";
import { checkAlternateHash, digestOf } from "@/lib/originals/headroom/keys";
import {
  MAX_ORIGINAL_BYTES,
  checkClientHash,
  displayStatus,
  effectiveTtlSeconds,
  expiryFor,
  formatMarker,
  guessContentType,
  markerKey,
  type OriginalsCounts,
} from "@/lib/originals/rules";
import { entryTokens } from "@/lib/originals/savings";
import type { StoreOriginalInput } from "@/lib/schemas/originals";
import type { StoreResultWire } from "@/lib/schemas/originals";
import {
  type OriginalsOptions,
  getOriginalsConfig,
  SUMMARY_COLUMNS,
  SUMMARY_ROW,
  type SummaryRow,
  ts,
  bump,
  DEFAULT_TENANT,
} from "./shared";
import { enforceStoreLimits } from "./eviction";

const MAX_MESSAGE_MIB = MAX_ORIGINAL_BYTES / (1024 * 1024);

export interface StoreOptions extends OriginalsOptions {
  /**
   * Whether the caller may read originals (lib/auth/access.ts `mayReadOriginals`). Only such a
   * caller's metadata replaces that of an entry already stored: the entry's metadata is
   * someone's, and writing it is theirs. Absent: it may not.
   */
  readsOriginals?: boolean;
}

/**
 * Stores an original under the sha256 of its text. The same text again is deduplicated
 * (200, nothing new written but a later expiry); a tombstoned key comes back to life.
 * The byte budget and the expiry sweep run after the write commits, so ingest never waits
 * for eviction inside its own transaction.
 */
export async function storeOriginal(
  input: StoreOriginalInput,
  options: StoreOptions = {},
): Promise<{ result: StoreResultWire; created: boolean }> {
  const now = options.now ?? new Date();
  const config = options.config ?? getOriginalsConfig();
  const sizeBytes = Buffer.byteLength(input.original, "utf8");
  if (sizeBytes > MAX_ORIGINAL_BYTES) {
    throw new ApiError(
      "payload_too_large",
      `The original is ${sizeBytes} bytes; originals of at most ${MAX_MESSAGE_MIB} MiB are stored.`,
    );
  }
  const compressed = input.compressed ?? null;
  const compressedBytes = compressed === null ? null : Buffer.byteLength(compressed, "utf8");
  if (compressedBytes !== null && compressedBytes > MAX_ORIGINAL_BYTES) {
    throw new ApiError(
      "payload_too_large",
      `The compressed text is ${compressedBytes} bytes; at most ${MAX_MESSAGE_MIB} MiB is stored.`,
    );
  }
  if (sizeBytes + (compressedBytes ?? 0) > config.maxBytes) {
    throw new ApiError(
      "payload_too_large",
      `This entry needs ${sizeBytes + (compressedBytes ?? 0)} bytes, more than the whole store's budget (CCR_MAX_BYTES=${config.maxBytes}).`,
    );
  }
  const digest = sha256Hex(input.original);
  // Headroom's other compressors key by MD5 or BLAKE3: that key is kept beside the sha256 one.
  const algorithm = input.hash_algorithm ?? "sha256";
  const alt = algorithm === "sha256" ? null : { algorithm, digest: digestOf(input.original, algorithm) };
  if (input.hash != null) {
    const problem = alt
      ? checkAlternateHash(input.hash, input.original, alt.algorithm)
      : checkClientHash(input.hash, digest);
    if (problem) {
      throw new ApiError("validation_failed", `The hash ${problem}.`, { issues: [{ path: "hash", message: problem }] });
    }
  }

  const tokens = entryTokens({
    originalBytes: sizeBytes,
    compressedBytes,
    originalTokens: input.original_tokens,
    compressedTokens: input.compressed_tokens,
  });
  const ttlSeconds = effectiveTtlSeconds(input.ttl_seconds, config.defaultTtlSeconds);
  const expiresAt = expiryFor(now, ttlSeconds);
  const key = markerKey(alt ? alt.digest : digest, input.hash);
  const marker = formatMarker(key, input.original_items, input.compressed_items);
  const tenant = input.tenant ?? DEFAULT_TENANT;
  const metadata = input.metadata ?? null;
  const metadataOnRepeat = options.readsOriginals ? metadata : null;
  const db = await getDb();

  const outcome = await db.transaction(async (tx) => {
    const [existing] = await queryRows(
      tx,
      sql`select ${SUMMARY_COLUMNS} from originals where tenant = ${tenant} and hash = ${digest} for update`,
      SUMMARY_ROW,
    );
    if (existing && displayStatus(existing.status, existing.expires_at, now) === "live") {
      return deduplicate(tx, existing, expiresAt, metadataOnRepeat, now);
    }
    const counts: Partial<OriginalsCounts> = {
      stored: 1,
      stored_bytes: sizeBytes + (compressedBytes ?? 0),
      tokens_saved_gross: tokens.tokensSaved !== null && tokens.tokensSaved > 0 ? tokens.tokensSaved : 0,
    };
    // A live row whose TTL ran out before anyone swept it: record the expiry it never got.
    if (existing && existing.status === "live") {
      counts.expiries = 1;
      counts.expired_bytes = existing.size_bytes + (existing.compressed_size_bytes ?? 0);
    }
    // Everything a fresh entry (or one brought back from a tombstone) starts with.
    const fresh = {
      status: "live" as const,
      original: input.original,
      compressed,
      sizeBytes,
      compressedSizeBytes: compressedBytes,
      contentType: input.content_type ?? guessContentType(input.original),
      toolName: input.tool_name ?? null,
      chainId: input.chain_id ?? null,
      passId: input.pass_id ?? null,
      originalItems: input.original_items ?? null,
      compressedItems: input.compressed_items ?? null,
      originalTokens: input.original_tokens ?? null,
      compressedTokens: input.compressed_tokens ?? null,
      tokensSaved: tokens.tokensSaved,
      retrievalTokens: tokens.retrievalTokens,
      tokensEstimated: tokens.estimated,
      ttlSeconds,
      createdAt: now,
      expiresAt,
      lastRetrievedAt: null,
      recencyAt: now,
      retrievalCount: 0,
      storeCount: 1,
      goneAt: null,
      goneReason: null,
      metadata,
    };
    const written = await tx
      .insert(originals)
      .values({ tenant, hash: digest, ...fresh })
      .onConflictDoUpdate({
        target: [originals.tenant, originals.hash],
        // The texts from the row proposed, not sent a second time: at 32 MiB each, one more
        // copy of each in every layer down to the database.
        set: { ...fresh, original: sql`excluded.original`, compressed: sql`excluded.compressed` },
        // Only a tombstone (or a row past its TTL) is replaced; a live row that another writer
        // committed since our read stays as it is and this store becomes a deduplication.
        setWhere: sql`${originals.status} <> 'live' or (${originals.expiresAt} is not null and ${originals.expiresAt} <= ${ts(now)})`,
      })
      .returning({ hash: originals.hash });
    if (written.length === 0) {
      const current = await queryRows(
        tx,
        sql`select ${SUMMARY_COLUMNS} from originals where tenant = ${tenant} and hash = ${digest} for update`,
        SUMMARY_ROW,
      );
      return deduplicate(tx, onlyRow(current), expiresAt, metadataOnRepeat, now);
    }
    await bump(tx, now, counts);
    return { created: true, contentType: fresh.contentType, expiresAt, createdAt: now };
  });

  if (alt) {
    // One alternate key per original: the first algorithm a client stored it under.
    await db.execute(sql`
      update originals set alt_hash = ${alt.digest}, alt_algorithm = ${alt.algorithm}
      where tenant = ${tenant} and hash = ${digest} and alt_hash is null`);
  }
  await enforceStoreLimits({ now, config });
  return {
    created: outcome.created,
    result: {
      hash: digest,
      tenant,
      size_bytes: sizeBytes,
      marker,
      marker_hash: key,
      deduplicated: !outcome.created,
      status: "live",
      content_type: outcome.contentType,
      expires_at: outcome.expiresAt?.toISOString() ?? null,
      created_at: outcome.createdAt.toISOString(),
    },
  };
}

/**
 * The same original stored again. Nothing is rewritten but the store count, the metadata
 * when the new store sends some (the latest store's wins, as a cache's set does), and, when
 * the new store asks for it, a later expiry: a TTL is never shortened by a repeat.
 */
async function deduplicate(
  tx: Executor,
  existing: SummaryRow,
  expiresAt: Date | null,
  metadata: Record<string, unknown> | null,
  now: Date,
) {
  const current = existing.expires_at;
  const later =
    current === null || expiresAt === null ? null : new Date(Math.max(current.getTime(), expiresAt.getTime()));
  await tx.execute(sql`
    update originals set store_count = store_count + 1, expires_at = ${later === null ? sql`null` : ts(later)},
      metadata = coalesce(${metadata === null ? null : JSON.stringify(metadata)}::jsonb, metadata)
    where tenant = ${existing.tenant} and hash = ${existing.hash}`);
  await bump(tx, now, { deduplicated: 1 });
  return {
    created: false,
    contentType: existing.content_type,
    expiresAt: later,
    createdAt: existing.created_at,
  };
}
