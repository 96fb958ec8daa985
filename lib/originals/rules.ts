// CCR (Compress, Cache, Retrieve) rules that need no database: store keys, markers,
// configuration, TTLs and the wording of a miss. The query layer applies them.
import { env, envInvalid } from "../env";
import { ApiError } from "../errors";
import { MiB } from "../http/body";
import { FULL_HASH_LENGTH, MIN_PREFIX_LENGTH, parseHashKey } from "./marker";

export {
  checkClientHash,
  FULL_HASH_LENGTH,
  formatMarker,
  type HashKey,
  MARKER_KEY_LENGTH,
  MIN_PREFIX_LENGTH,
  markerKey,
  parseHashKey,
} from "./marker";

/** A key a request names, or the 422 that says what is wrong with it. */
export function requireHashKey(rawKey: string): { key: string; full: boolean } {
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) {
    throw new ApiError("validation_failed", `The hash ${parsed.message}.`, {
      issues: [{ path: "hash", message: parsed.message }],
    });
  }
  return parsed;
}

export const MAX_ORIGINAL_BYTES = 32 * MiB;
export const DEFAULT_MAX_BYTES = 1024 * MiB;
/** No TTL unless the operator sets CCR_TTL_SECONDS or the client sets ttl_seconds. */
const DEFAULT_TTL_SECONDS: number | null = null;
/** Keeps `now + ttl` a representable date with room to spare (about 100 years). */
export const MAX_TTL_SECONDS = 100 * 365 * 24 * 3600;

export interface OriginalsConfig {
  /** Byte budget for live originals (original plus compressed text). */
  maxBytes: number;
  /** TTL for entries that do not set their own; null for none. */
  defaultTtlSeconds: number | null;
}

function wholeNumber(
  source: Record<string, string | undefined>,
  name: "CCR_MAX_BYTES" | "CCR_TTL_SECONDS",
  max: number,
  problems: string[],
): number | null {
  const value = env(name, source);
  if (value !== undefined && value <= max) return value;
  if (value !== undefined || envInvalid(name, source)) {
    problems.push(
      `${name} must be a whole number from 0 to ${max}; got ${JSON.stringify(source[name])}, so the default applies.`,
    );
  }
  return null;
}

/**
 * CCR_MAX_BYTES (default 1 GiB) and CCR_TTL_SECONDS (default none; 0 also means none).
 * A malformed value falls back to the default and is reported in `problems`, for the caller
 * to log: refusing every request over a typo in the environment would be worse.
 */
export function originalsConfigFromEnv(source: Record<string, string | undefined>): {
  config: OriginalsConfig;
  problems: string[];
} {
  const problems: string[] = [];
  const maxBytes = wholeNumber(source, "CCR_MAX_BYTES", Number.MAX_SAFE_INTEGER, problems);
  const ttl = wholeNumber(source, "CCR_TTL_SECONDS", MAX_TTL_SECONDS, problems);
  return {
    config: {
      maxBytes: maxBytes === null || maxBytes === 0 ? DEFAULT_MAX_BYTES : maxBytes,
      defaultTtlSeconds: ttl === null || ttl === 0 ? DEFAULT_TTL_SECONDS : ttl,
    },
    problems,
  };
}

/** An entry's own positive TTL wins; 0 or none falls back to the store default (which may be none). */
export function effectiveTtlSeconds(entryTtl: number | null | undefined, defaultTtl: number | null): number | null {
  if (entryTtl != null && entryTtl > 0) return entryTtl;
  return defaultTtl;
}

export function expiryFor(storedAt: Date, ttlSeconds: number | null): Date | null {
  return ttlSeconds === null ? null : new Date(storedAt.getTime() + ttlSeconds * 1000);
}

/** A live row past its expiry is already expired to every reader, before any sweep marks it. */
export function displayStatus(
  status: "live" | "evicted" | "expired",
  expiresAt: Date | null,
  now: Date,
): "live" | "evicted" | "expired" {
  return status === "live" && expiresAt !== null && expiresAt.getTime() <= now.getTime() ? "expired" : status;
}

/** Cheap guess when the client names no content type: JSON only when it actually parses. */
export function guessContentType(original: string): string {
  const first = original.trimStart()[0];
  if ((first === "{" || first === "[") && original.length <= 4 * MiB) {
    try {
      JSON.parse(original);
      return "application/json";
    } catch {
      return "text/plain";
    }
  }
  return "text/plain";
}

/** UTC start of the hour containing `at`: the bucket of the per-hour counters. */
export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
}

/** Kept with the tombstone: the budget named is the one in force at the eviction, not today's. */
export function evictionReason(maxBytes: number, lastRetrievedAt: Date | null, createdAt: Date): string {
  const recency = lastRetrievedAt
    ? `last retrieved ${lastRetrievedAt.toISOString()}`
    : `never retrieved since it was stored ${createdAt.toISOString()}`;
  return `Evicted to keep the store within its byte budget as it was then (CCR_MAX_BYTES=${maxBytes}; the budget may have changed since); it was the least recently retrieved entry (${recency}).`;
}

export function deletionReason(route: string, at: Date): string {
  return `Deleted by a client (${route}) at ${at.toISOString()}.`;
}

export function expiryReason(ttlSeconds: number | null, expiresAt: Date): string {
  const ttl = ttlSeconds === null ? "its TTL" : `its TTL of ${ttlSeconds} s`;
  return `Expired: ${ttl} ran out at ${expiresAt.toISOString()}.`;
}

/** The 410 message: when, why, and that the agent should stop asking for this key. */
export function goneMessage(hash: string, status: "evicted" | "expired", goneAt: Date, reason: string | null): string {
  const why =
    reason ?? (status === "evicted" ? "It was evicted to keep the store within its byte budget." : "Its TTL ran out.");
  return (
    `The original ${hash} was ${status} at ${goneAt.toISOString()} and is gone for good. ${why} ` +
    `Retrying this hash will not help; work from the compressed content, or re-run the tool that produced the original.`
  );
}

export function unknownMessage(key: string): string {
  return (
    `No original was ever stored under ${key}. Check the key against the compression marker ` +
    `(it must be the sha256 of the original or a prefix of at least ${MIN_PREFIX_LENGTH} hex characters); retrying the same key will not help.`
  );
}

export function ambiguousMessage(key: string, count: number, atLeast = false): string {
  return `The prefix ${key} matches ${atLeast ? "at least " : ""}${count} stored originals; send more characters of the hash (up to the full ${FULL_HASH_LENGTH}).`;
}

/** What the per-hour and all-time counters count. */
export const CCR_METRICS = [
  "stored",
  "stored_bytes",
  "deduplicated",
  "retrieved",
  "retrieved_bytes",
  "miss_unknown",
  "miss_evicted",
  "miss_expired",
  "miss_ambiguous",
  "evictions",
  "evicted_bytes",
  "expiries",
  "expired_bytes",
  "tokens_saved_gross",
  "tokens_respent",
] as const;
export type CcrMetric = (typeof CCR_METRICS)[number];
export type OriginalsCounts = Record<CcrMetric, number>;

export const MISS_REASONS = ["unknown", "evicted", "expired", "ambiguous"] as const;
export type MissReason = (typeof MISS_REASONS)[number];

export function emptyCounts(): OriginalsCounts {
  return Object.fromEntries(CCR_METRICS.map((m) => [m, 0])) as OriginalsCounts;
}

/**
 * Headers of every retrieval response. `no-store`: a cached copy would be a retrieval the
 * store never counts. `no-transform`: the server would otherwise gzip a multi-MiB original
 * on every call, which costs an agent next to the store more time than it saves.
 */
export const RETRIEVAL_HEADERS = { "cache-control": "no-store, no-transform" } as const;
