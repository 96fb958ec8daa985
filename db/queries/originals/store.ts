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
  const sizes = sizesWithinLimits(input, config.maxBytes);
  const keys = keysOf(input);
  const marker = formatMarker(keys.markerKey, input.original_items, input.compressed_items);
  const entry = newEntry(input, sizes, now, config.defaultTtlSeconds);
  const at = { tenant: input.tenant ?? DEFAULT_TENANT, hash: keys.digest };
  const metadataOnRepeat = options.readsOriginals ? entry.fresh.metadata : null;
  const db = await getDb();
  const outcome = await db.transaction((tx) => writeEntry(tx, at, entry, metadataOnRepeat, now));
  if (keys.alt) await recordAlternateKey(db, at, keys.alt);
  await enforceStoreLimits({ now, config });
  return {
    created: outcome.created,
    result: {
      hash: keys.digest,
      tenant: at.tenant,
      size_bytes: sizes.sizeBytes,
      marker,
      marker_hash: keys.markerKey,
      deduplicated: !outcome.created,
      status: "live",
      content_type: outcome.contentType,
      expires_at: outcome.expiresAt?.toISOString() ?? null,
      created_at: outcome.createdAt.toISOString(),
    },
  };
}

interface EntrySizes {
  sizeBytes: number;
  compressed: string | null;
  compressedBytes: number | null;
}

/** The entry's sizes; 413 for a text over the per-original limit or an entry over the whole budget. */
function sizesWithinLimits(input: StoreOriginalInput, budgetBytes: number): EntrySizes {
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
  if (sizeBytes + (compressedBytes ?? 0) > budgetBytes) {
    throw new ApiError(
      "payload_too_large",
      `This entry needs ${sizeBytes + (compressedBytes ?? 0)} bytes, more than the whole store's budget (CCR_MAX_BYTES=${budgetBytes}).`,
    );
  }
  return { sizeBytes, compressed, compressedBytes };
}

/** An alternate key: the MD5 or BLAKE3 digest Headroom's other compressors key by. */
interface AlternateKey {
  algorithm: Exclude<NonNullable<StoreOriginalInput["hash_algorithm"]>, "sha256">;
  digest: string;
}

/**
 * The keys the entry is stored and found under: the sha256 of its text, the alternate key when
 * the client stored it under another algorithm, and the key its marker carries. 422 when the
 * client's hash is not the text's.
 */
function keysOf(input: StoreOriginalInput): { digest: string; alt: AlternateKey | null; markerKey: string } {
  const digest = sha256Hex(input.original);
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
  return { digest, alt, markerKey: markerKey(alt ? alt.digest : digest, input.hash) };
}

/** What a store writes when the entry is new (or comes back from a tombstone), and what it counts. */
type NewEntry = ReturnType<typeof newEntry>;

function newEntry(input: StoreOriginalInput, sizes: EntrySizes, now: Date, defaultTtlSeconds: number | null) {
  const { sizeBytes, compressed, compressedBytes } = sizes;
  const tokens = entryTokens({
    originalBytes: sizeBytes,
    compressedBytes,
    originalTokens: input.original_tokens,
    compressedTokens: input.compressed_tokens,
  });
  const ttlSeconds = effectiveTtlSeconds(input.ttl_seconds, defaultTtlSeconds);
  return {
    fresh: {
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
      expiresAt: expiryFor(now, ttlSeconds),
      lastRetrievedAt: null,
      recencyAt: now,
      retrievalCount: 0,
      storeCount: 1,
      goneAt: null,
      goneReason: null,
      metadata: input.metadata ?? null,
    },
    counts: {
      stored: 1,
      stored_bytes: sizeBytes + (compressedBytes ?? 0),
      tokens_saved_gross: tokens.tokensSaved !== null && tokens.tokensSaved > 0 ? tokens.tokensSaved : 0,
    },
  };
}

/** Where an entry is stored: its tenant and the sha256 of its text. */
interface EntryKey {
  tenant: string;
  hash: string;
}

interface WriteOutcome {
  created: boolean;
  contentType: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/** The entry's row, locked for the rest of the transaction (none when the key was never stored). */
const lockEntry = (tx: Executor, at: EntryKey) =>
  queryRows(
    tx,
    sql`select ${SUMMARY_COLUMNS} from originals where tenant = ${at.tenant} and hash = ${at.hash} for update`,
    SUMMARY_ROW,
  );

/**
 * Writes the entry in the caller's transaction: a repeat of a live entry is deduplicated; a key
 * never stored, tombstoned or past its TTL gets the fresh row.
 */
async function writeEntry(
  tx: Executor,
  at: EntryKey,
  entry: NewEntry,
  metadataOnRepeat: Record<string, unknown> | null,
  now: Date,
): Promise<WriteOutcome> {
  const [existing] = await lockEntry(tx, at);
  if (existing && displayStatus(existing.status, existing.expires_at, now) === "live") {
    return deduplicate(tx, existing, entry.fresh.expiresAt, metadataOnRepeat, now);
  }
  if (!(await insertOrRevive(tx, at, entry.fresh, now))) {
    // A live row another writer committed since our read stays as it is: a deduplication.
    return deduplicate(tx, onlyRow(await lockEntry(tx, at)), entry.fresh.expiresAt, metadataOnRepeat, now);
  }
  await bump(tx, now, { ...entry.counts, ...expiryNeverRecorded(existing) });
  return { created: true, contentType: entry.fresh.contentType, expiresAt: entry.fresh.expiresAt, createdAt: now };
}

/** A live row whose TTL ran out before anyone swept it: the expiry it never got, to count now. */
function expiryNeverRecorded(existing: SummaryRow | undefined): Partial<OriginalsCounts> {
  if (existing?.status !== "live") return {};
  return { expiries: 1, expired_bytes: existing.size_bytes + (existing.compressed_size_bytes ?? 0) };
}

/** Inserts the fresh row, or replaces a tombstone (or a row past its TTL) with it; false when neither. */
async function insertOrRevive(tx: Executor, at: EntryKey, fresh: NewEntry["fresh"], now: Date): Promise<boolean> {
  const written = await tx
    .insert(originals)
    .values({ ...at, ...fresh })
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
  return written.length > 0;
}

/** One alternate key per original: the first algorithm a client stored it under. */
async function recordAlternateKey(db: Executor, at: EntryKey, alt: AlternateKey): Promise<void> {
  await db.execute(sql`
    update originals set alt_hash = ${alt.digest}, alt_algorithm = ${alt.algorithm}
    where tenant = ${at.tenant} and hash = ${at.hash} and alt_hash is null`);
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
