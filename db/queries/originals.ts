import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb, queryRows, type Executor } from "../index";
import { originals } from "../schema";
import { type OriginalStatus } from "@/lib/ccr/types";
import { ApiError } from "@/lib/errors";
import { sha256Hex } from "@/lib/guard/hash";
import {
  CCR_METRICS,
  FULL_HASH_LENGTH,
  MAX_ORIGINAL_BYTES,
  MIN_PREFIX_LENGTH,
  ambiguousMessage,
  ccrConfigFromEnv,
  checkClientHash,
  displayStatus,
  effectiveTtlSeconds,
  emptyCounts,
  evictionReason,
  expiryFor,
  expiryReason,
  formatMarker,
  goneMessage,
  guessContentType,
  hourOf,
  markerKey,
  parseHashKey,
  unknownMessage,
  type CcrConfig,
  type CcrCounts,
  type CcrMetric,
  type MissReason,
} from "@/lib/ccr/rules";
import { bytesOverBudget, planEviction, type EvictionCandidate } from "@/lib/ccr/eviction";
import { entryTokens, summariseSavings, type SavingsSummary } from "@/lib/ccr/savings";
import type { OriginalListQuery, OriginalSort, StoreOriginalInput } from "@/lib/schemas/originals";
import type {
  ChainOriginalLinks,
  CcrTotalsWire,
  MatchingPassWire,
  OriginalLink,
  OriginalStatsWire,
  OriginalSummaryWire,
  RestoreMatch,
  RetrievedOriginalWire,
  StoreResultWire,
} from "@/lib/ccr/types";

/** Every function takes the clock from here, so tests move time instead of sleeping. */
export interface CcrOptions {
  now?: Date;
  config?: CcrConfig;
}

let reportedConfigProblems = false;

/** CCR_MAX_BYTES and CCR_TTL_SECONDS, read per call so an operator's change needs no code path. */
export function getCcrConfig(): CcrConfig {
  const { config, problems } = ccrConfigFromEnv(process.env);
  if (problems.length > 0 && !reportedConfigProblems) {
    reportedConfigProblems = true;
    for (const problem of problems) console.error(`[floorline] ${problem}`);
  }
  return config;
}

// ---------------------------------------------------------------------------------------
// Wire shapes

// Everything but the texts: listing, eviction and tombstones never read the large columns.
const SUMMARY_COLUMNS = sql.raw(
  [
    "hash",
    "status",
    "size_bytes",
    "compressed_size_bytes",
    "content_type",
    "tool_name",
    "chain_id",
    "pass_id",
    "original_items",
    "compressed_items",
    "original_tokens",
    "compressed_tokens",
    "tokens_saved",
    "retrieval_tokens",
    "tokens_estimated",
    "ttl_seconds",
    "created_at",
    "expires_at",
    "last_retrieved_at",
    "retrieval_count",
    "store_count",
    "gone_at",
    "gone_reason",
  ].join(", "),
);

type RawRow = Record<string, unknown>;

// postgres.js answers bigint as strings and PGlite as numbers; both answer timestamptz as Date.
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const date = (v: unknown): Date | null =>
  v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v));
const iso = (v: unknown): string | null => date(v)?.toISOString() ?? null;

function toSummaryWire(r: RawRow, now: Date): OriginalSummaryWire {
  const expiresAt = date(r.expires_at);
  const status = displayStatus(r.status as OriginalStatus, expiresAt, now);
  return {
    hash: r.hash as string,
    status,
    size_bytes: num(r.size_bytes)!,
    compressed_size_bytes: num(r.compressed_size_bytes),
    content_type: (r.content_type as string | null) ?? null,
    tool_name: (r.tool_name as string | null) ?? null,
    chain_id: (r.chain_id as string | null) ?? null,
    pass_id: (r.pass_id as string | null) ?? null,
    original_items: num(r.original_items),
    compressed_items: num(r.compressed_items),
    original_tokens: num(r.original_tokens),
    compressed_tokens: num(r.compressed_tokens),
    tokens_saved: num(r.tokens_saved),
    retrieval_tokens: num(r.retrieval_tokens)!,
    tokens_estimated: Boolean(r.tokens_estimated),
    ttl_seconds: num(r.ttl_seconds),
    created_at: iso(r.created_at)!,
    expires_at: expiresAt?.toISOString() ?? null,
    last_retrieved_at: iso(r.last_retrieved_at),
    retrieval_count: num(r.retrieval_count)!,
    store_count: num(r.store_count)!,
    // A live row past its expiry reads as expired, gone when its TTL ran out.
    gone_at: status === "expired" && r.status === "live" ? (expiresAt?.toISOString() ?? null) : iso(r.gone_at),
    gone_reason:
      status === "expired" && r.status === "live" && expiresAt
        ? expiryReason(num(r.ttl_seconds), expiresAt)
        : ((r.gone_reason as string | null) ?? null),
  };
}

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Hashes starting with a hex prefix, as a byte-wise range on the pattern index. Keys are
 * lowercase hex, so every one that starts with `p` sorts in [p, p + "g"). A range stays
 * indexable under a generic prepared plan, where `like $1` would scan the table.
 */
const startsWith = (prefix: string) => sql`(hash ~>=~ ${prefix} and hash ~<~ ${prefix + "g"})`;

// ---------------------------------------------------------------------------------------
// Counters

/** The counter rows at this "hour" hold all-time totals, so totals never sum over hours. */
const ALL_TIME = new Date(0);

/**
 * Adds to this hour's counters and to the all-time totals inside the caller's transaction.
 * Rows go in one fixed order (all-time first, then by metric) so that two transactions
 * never take counter rows in opposite orders.
 */
async function bump(executor: Executor, now: Date, counts: Partial<CcrCounts>): Promise<void> {
  const metrics = CCR_METRICS.filter((m) => counts[m]);
  if (metrics.length === 0) return;
  const rows = [ALL_TIME, hourOf(now)].flatMap((hour) =>
    metrics.map((metric) => ({ hour: hour.toISOString(), metric, value: counts[metric] })),
  );
  await executor.execute(sql`
    insert into ccr_counters (hour, metric, value)
    select c.hour, c.metric, c.value
    from json_to_recordset(${JSON.stringify(rows)}::json) as c(hour timestamptz, metric text, value bigint)
    on conflict (hour, metric) do update set value = ccr_counters.value + excluded.value`);
}

// ---------------------------------------------------------------------------------------
// Store

const MAX_MESSAGE_MIB = MAX_ORIGINAL_BYTES / (1024 * 1024);

/**
 * Stores an original under the sha256 of its text. The same text again is deduplicated
 * (200, nothing new written but a later expiry); a tombstoned key comes back to life.
 * The byte budget and the expiry sweep run after the write commits, so ingest never waits
 * for eviction inside its own transaction.
 */
export async function storeOriginal(
  input: StoreOriginalInput,
  options: CcrOptions = {},
): Promise<{ result: StoreResultWire; created: boolean }> {
  const now = options.now ?? new Date();
  const config = options.config ?? getCcrConfig();
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
  if (input.hash != null) {
    const problem = checkClientHash(input.hash, digest);
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
  const key = markerKey(digest, input.hash);
  const marker = formatMarker(key, input.original_items, input.compressed_items);
  const db = await getDb();

  const outcome = await db.transaction(async (tx) => {
    const [existing] = await queryRows<RawRow>(
      tx,
      sql`select ${SUMMARY_COLUMNS} from originals where hash = ${digest} for update`,
    );
    if (existing && displayStatus(existing.status as OriginalStatus, date(existing.expires_at), now) === "live") {
      return deduplicate(tx, existing, expiresAt, now);
    }
    const counts: Partial<CcrCounts> = {
      stored: 1,
      stored_bytes: sizeBytes + (compressedBytes ?? 0),
      tokens_saved_gross: tokens.tokensSaved !== null && tokens.tokensSaved > 0 ? tokens.tokensSaved : 0,
    };
    // A live row whose TTL ran out before anyone swept it: record the expiry it never got.
    if (existing && existing.status === "live") {
      counts.expiries = 1;
      counts.expired_bytes = num(existing.size_bytes)! + (num(existing.compressed_size_bytes) ?? 0);
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
    };
    const written = await tx
      .insert(originals)
      .values({ hash: digest, ...fresh })
      .onConflictDoUpdate({
        target: originals.hash,
        set: fresh,
        // Only a tombstone (or a row past its TTL) is replaced; a live row that another writer
        // committed since our read stays as it is and this store becomes a deduplication.
        setWhere: sql`${originals.status} <> 'live' or (${originals.expiresAt} is not null and ${originals.expiresAt} <= ${ts(now)})`,
      })
      .returning({ hash: originals.hash });
    if (written.length === 0) {
      const [current] = await queryRows<RawRow>(
        tx,
        sql`select ${SUMMARY_COLUMNS} from originals where hash = ${digest} for update`,
      );
      return deduplicate(tx, current, expiresAt, now);
    }
    await bump(tx, now, counts);
    return { created: true, contentType: fresh.contentType, expiresAt, createdAt: now };
  });

  await enforceStoreLimits({ now, config });
  return {
    created: outcome.created,
    result: {
      hash: digest,
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
 * The same original stored again. Nothing is rewritten but the store count and, when the
 * new store asks for it, a later expiry: a TTL is never shortened by a repeat.
 */
async function deduplicate(tx: Executor, existing: RawRow, expiresAt: Date | null, now: Date) {
  const current = date(existing.expires_at);
  const later =
    current === null || expiresAt === null ? null : new Date(Math.max(current.getTime(), expiresAt.getTime()));
  await tx.execute(sql`
    update originals set store_count = store_count + 1, expires_at = ${later === null ? sql`null` : ts(later)}
    where hash = ${existing.hash as string}`);
  await bump(tx, now, { deduplicated: 1 });
  return {
    created: false,
    contentType: (existing.content_type as string | null) ?? null,
    expiresAt: later,
    createdAt: date(existing.created_at)!,
  };
}

// ---------------------------------------------------------------------------------------
// Budget and expiry

// Any fixed number: one evictor at a time, so two writers never both evict for the same overshoot.
const EVICTION_LOCK_KEY = 0x63637231;
const SWEEP_BATCH = 500;
const EVICTION_BATCH = 200;
const MAX_EVICTIONS_PER_CALL = 5_000;

/**
 * Marks live entries past their TTL as expired, then evicts the least recently retrieved
 * until the live bytes fit the budget. Bounded per call so a large backlog (a lowered
 * budget) is worked off over several writes instead of stalling one. Rows a retrieval is
 * touching are skipped, not waited for.
 */
export async function enforceStoreLimits(options: CcrOptions = {}): Promise<{ expired: number; evicted: number }> {
  const now = options.now ?? new Date();
  const config = options.config ?? getCcrConfig();
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${EVICTION_LOCK_KEY})`);

    const due = await queryRows<RawRow>(
      tx,
      sql`
        select hash, size_bytes, compressed_size_bytes, ttl_seconds, expires_at from originals
        where status = 'live' and expires_at is not null and expires_at <= ${ts(now)}
        order by expires_at, hash limit ${SWEEP_BATCH}
        for update skip locked`,
    );
    await tombstone(
      tx,
      "expired",
      due.map((r) => ({
        hash: r.hash as string,
        goneAt: date(r.expires_at)!,
        reason: expiryReason(num(r.ttl_seconds), date(r.expires_at)!),
      })),
    );

    // The all-time counters give the live bytes in three row reads; the exact sum over live
    // rows runs only when they say the budget is exceeded, that is when eviction runs anyway.
    const [estimate] = await queryRows<{ live_bytes: unknown }>(
      tx,
      sql`
        select coalesce(sum(case metric when 'stored_bytes' then value else -value end), 0) as live_bytes
        from ccr_counters where hour = ${ts(ALL_TIME)} and metric in ('stored_bytes', 'evicted_bytes', 'expired_bytes')`,
    );
    let over = bytesOverBudget(Number(estimate.live_bytes), config.maxBytes);
    if (over > 0) {
      const [usage] = await queryRows<{ live_bytes: unknown }>(
        tx,
        sql`select coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)), 0) as live_bytes from originals where status = 'live'`,
      );
      over = bytesOverBudget(Number(usage.live_bytes), config.maxBytes);
    }
    let evicted = 0;
    while (over > 0 && evicted < MAX_EVICTIONS_PER_CALL) {
      const rows = await queryRows<RawRow>(
        tx,
        sql`
          select hash, size_bytes, compressed_size_bytes, recency_at, last_retrieved_at, created_at from originals
          where status = 'live'
          order by recency_at, hash limit ${EVICTION_BATCH}
          for update skip locked`,
      );
      if (rows.length === 0) break;
      const byHash = new Map(rows.map((r) => [r.hash as string, r]));
      const candidates: EvictionCandidate[] = rows.map((r) => ({
        hash: r.hash as string,
        bytes: num(r.size_bytes)! + (num(r.compressed_size_bytes) ?? 0),
        recencyAt: date(r.recency_at)!,
      }));
      const { victims, freedBytes } = planEviction(candidates, over);
      await tombstone(
        tx,
        "evicted",
        victims.map((v) => {
          const r = byHash.get(v.hash)!;
          return {
            hash: v.hash,
            goneAt: now,
            reason: evictionReason(config.maxBytes, date(r.last_retrieved_at), date(r.created_at)!),
          };
        }),
      );
      over -= freedBytes;
      evicted += victims.length;
    }
    return { expired: due.length, evicted };
  });
}

/**
 * Drops the texts and keeps hash, size, when and why; counts each event in the hour it
 * happened (an expiry when the TTL ran out, not when a sweep noticed), in the same transaction.
 */
async function tombstone(
  tx: Executor,
  status: "evicted" | "expired",
  rows: { hash: string; goneAt: Date; reason: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  const gone = await queryRows<{ hash: string; bytes: unknown }>(
    tx,
    sql`
      update originals o set status = ${status}, original = null, compressed = null, gone_at = t.gone_at, gone_reason = t.reason
      from json_to_recordset(${JSON.stringify(rows.map((r) => ({ hash: r.hash, gone_at: r.goneAt.toISOString(), reason: r.reason })))}::json)
        as t(hash text, gone_at timestamptz, reason text)
      where o.hash = t.hash and o.status = 'live'
      returning o.hash, o.size_bytes + coalesce(o.compressed_size_bytes, 0) as bytes`,
  );
  const goneAt = new Map(rows.map((r) => [r.hash, r.goneAt]));
  const byHour = new Map<number, { count: number; bytes: number }>();
  for (const r of gone) {
    const hour = hourOf(goneAt.get(r.hash)!).getTime();
    const bucket = byHour.get(hour) ?? { count: 0, bytes: 0 };
    bucket.count += 1;
    bucket.bytes += Number(r.bytes);
    byHour.set(hour, bucket);
  }
  for (const [hour, { count, bytes }] of [...byHour].sort(([a], [b]) => a - b)) {
    await bump(
      tx,
      new Date(hour),
      status === "evicted" ? { evictions: count, evicted_bytes: bytes } : { expiries: count, expired_bytes: bytes },
    );
  }
}

// ---------------------------------------------------------------------------------------
// Retrieve

const MAX_CANDIDATES = 10;

function missError(reason: MissReason, key: string, extra: Record<string, unknown> = {}): ApiError {
  if (reason === "unknown")
    return new ApiError("unknown_hash", unknownMessage(key), { extra: { hash: key, retryable: false } });
  if (reason === "ambiguous") {
    const candidates = (extra.candidates as unknown[]) ?? [];
    return new ApiError(
      "ambiguous_hash",
      ambiguousMessage(key, candidates.length, candidates.length >= MAX_CANDIDATES),
      {
        extra: { hash: key, retryable: false, ...extra },
      },
    );
  }
  const goneAt = extra.gone_at as string;
  return new ApiError(
    reason,
    goneMessage(extra.hash as string, reason, new Date(goneAt), (extra.reason as string | null) ?? null),
    {
      extra: { retryable: false, ...extra },
    },
  );
}

async function countMiss(
  executor: Executor,
  now: Date,
  reason: MissReason,
  more: Partial<CcrCounts> = {},
): Promise<void> {
  const metric: CcrMetric = `miss_${reason}`;
  await bump(executor, now, { ...more, [metric]: 1 });
}

/**
 * Resolves a full hash or a unique prefix of at least 12 hex characters, without touching
 * recency or counters. `ambiguous` lists up to MAX_CANDIDATES candidates.
 */
async function resolveKey(
  executor: Executor,
  key: string,
): Promise<{ hash: string } | { ambiguous: { hash: string; status: OriginalStatus }[] } | null> {
  if (key.length === FULL_HASH_LENGTH) return { hash: key };
  const rows = await queryRows<{ hash: string; status: OriginalStatus }>(
    executor,
    // Sorted after the limit: ordering inside would pull the scan off the pattern index.
    sql`select hash, status from (select hash, status from originals where ${startsWith(key)} limit ${MAX_CANDIDATES}) c order by hash`,
  );
  if (rows.length === 0) return null;
  if (rows.length > 1) return { ambiguous: rows };
  return { hash: rows[0].hash };
}

/**
 * The `headroom_retrieve` call: returns the original and refreshes its recency, counting
 * the retrieval and the tokens it puts back into the context. A miss is counted by reason
 * and answered 404 (never stored), 409 (ambiguous prefix) or 410 (evicted or expired, with
 * when and why).
 */
export async function retrieveOriginal(rawKey: string, options: CcrOptions = {}): Promise<RetrievedOriginalWire> {
  const now = options.now ?? new Date();
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) {
    throw new ApiError("validation_failed", `The hash ${parsed.message}.`, {
      issues: [{ path: "hash", message: parsed.message }],
    });
  }
  const db = await getDb();
  const matching = parsed.full ? sql`hash = ${parsed.key}` : startsWith(parsed.key);

  // The hot path is one statement, one round trip: resolving the key, the recency update,
  // the counters and the read commit together. Its commit does not wait for the WAL flush
  // (`set_config(..., true)` lasts only for this statement's own transaction): a crash could
  // lose the last moment's recency and counts, never an original, and the flush would cost
  // each retrieval as much as reading the row. The setting is referenced in the update so
  // that it is evaluated. A key naming none or several entries updates nothing.
  const [hit] = await queryRows<RawRow>(
    db,
    sql`
      with async_commit as (
        select set_config('synchronous_commit', 'off', true) as setting
      ),
      matches as (
        select hash from originals where ${matching} limit 2
      ),
      hit as (
        update originals set
          retrieval_count = retrieval_count + 1,
          last_retrieved_at = ${ts(now)},
          recency_at = greatest(recency_at, ${ts(now)})
        where hash = (select hash from matches where (select count(*) from matches) = 1)
          and status = 'live' and (expires_at is null or expires_at > ${ts(now)})
          and (select setting from async_commit) is not null
        returning ${SUMMARY_COLUMNS}, original
      ),
      counted as (
        insert into ccr_counters (hour, metric, value)
        select h.hour, m.metric, m.value
        from hit
          cross join (values (${ts(ALL_TIME)}), (${ts(hourOf(now))})) as h(hour)
          cross join lateral (values
            ('retrieved', 1::bigint),
            ('retrieved_bytes', hit.size_bytes),
            ('tokens_respent', hit.retrieval_tokens)
          ) as m(metric, value)
        order by h.hour, m.metric
        on conflict (hour, metric) do update set value = ccr_counters.value + excluded.value
      )
      select * from hit`,
  );
  if (hit) return { ...toSummaryWire(hit, now), original: hit.original as string };

  const resolved = await resolveKey(db, parsed.key);
  if (resolved === null) {
    await countMiss(db, now, "unknown");
    throw missError("unknown", parsed.key);
  }
  if ("ambiguous" in resolved) {
    await countMiss(db, now, "ambiguous");
    throw missError("ambiguous", parsed.key, { candidates: resolved.ambiguous });
  }
  const hash = resolved.hash;

  // A miss is answered only after its transaction commits: the miss counter and a lazily
  // marked expiry must survive the error response.
  const outcome = await db.transaction(async (tx): Promise<RetrievedOriginalWire | ApiError> => {
    const [row] = await queryRows<RawRow>(
      tx,
      sql`select ${SUMMARY_COLUMNS} from originals where hash = ${hash} for update`,
    );
    if (!row) {
      await countMiss(tx, now, "unknown");
      return missError("unknown", parsed.key);
    }
    let status = row.status as OriginalStatus;
    let goneAt = date(row.gone_at);
    let reason = (row.gone_reason as string | null) ?? null;
    if (status === "live") {
      const expiresAt = date(row.expires_at);
      if (expiresAt === null || expiresAt > now) {
        // Stored again between our two reads: answer it rather than call it a miss.
        return retrieveAfterRace(tx, hash, now);
      }
      // Expired by time but not yet swept: mark it now, so it reads the same everywhere.
      reason = expiryReason(num(row.ttl_seconds), expiresAt);
      goneAt = expiresAt;
      await tombstone(tx, "expired", [{ hash, goneAt: expiresAt, reason }]);
      status = "expired";
    }
    const gone = status as "evicted" | "expired";
    await countMiss(tx, now, gone);
    return missError(gone, parsed.key, {
      hash,
      gone_at: goneAt!.toISOString(),
      reason,
      size_bytes: num(row.size_bytes),
    });
  });
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

async function retrieveAfterRace(tx: Executor, hash: string, now: Date): Promise<RetrievedOriginalWire> {
  const [row] = await queryRows<RawRow>(
    tx,
    sql`
      update originals set retrieval_count = retrieval_count + 1, last_retrieved_at = ${ts(now)}, recency_at = greatest(recency_at, ${ts(now)})
      where hash = ${hash} returning ${SUMMARY_COLUMNS}, original`,
  );
  await bump(tx, now, {
    retrieved: 1,
    retrieved_bytes: num(row.size_bytes)!,
    tokens_respent: num(row.retrieval_tokens)!,
  });
  return { ...toSummaryWire(row, now), original: row.original as string };
}

// ---------------------------------------------------------------------------------------
// Browse (no texts, no counting)

const statusExpr = (now: Date) =>
  sql`(case when status = 'live' and expires_at is not null and expires_at <= ${ts(now)} then 'expired' else status end)`;

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

// ---------------------------------------------------------------------------------------
// Stats

function toTotals(c: CcrCounts): CcrTotalsWire {
  const misses = {
    unknown: c.miss_unknown,
    evicted: c.miss_evicted,
    expired: c.miss_expired,
    ambiguous: c.miss_ambiguous,
  };
  const missTotal = misses.unknown + misses.evicted + misses.expired + misses.ambiguous;
  const savings: SavingsSummary = summariseSavings(c.tokens_saved_gross, c.tokens_respent);
  return {
    stored: c.stored,
    stored_bytes: c.stored_bytes,
    deduplicated: c.deduplicated,
    retrieved: c.retrieved,
    retrieved_bytes: c.retrieved_bytes,
    misses: { ...misses, total: missTotal },
    evictions: c.evictions,
    evicted_bytes: c.evicted_bytes,
    expiries: c.expiries,
    expired_bytes: c.expired_bytes,
    hit_rate: c.retrieved + missTotal > 0 ? c.retrieved / (c.retrieved + missTotal) : null,
    tokens: {
      saved_gross: savings.gross,
      respent: savings.respent,
      net: savings.net,
      respent_share: savings.respentShare,
    },
  };
}

function isMetric(m: string): m is CcrMetric {
  return (CCR_METRICS as readonly string[]).includes(m);
}

/** Store occupancy, all-time counters, and the last `hours` hours (oldest first, empty hours included). */
export async function getOriginalStats(hours = 24, options: CcrOptions = {}): Promise<OriginalStatsWire> {
  const now = options.now ?? new Date();
  const config = options.config ?? getCcrConfig();
  const db = await getDb();
  const currentHour = hourOf(now).getTime();
  const from = new Date(currentHour - (hours - 1) * 3_600_000);
  const [store, totals, hourly] = await Promise.all([
    queryRows<RawRow>(
      db,
      sql`
        select
          count(*) filter (where s = 'live') as live_count,
          coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)) filter (where s = 'live'), 0) as live_bytes,
          count(*) filter (where s = 'evicted') as evicted_count,
          count(*) filter (where s = 'expired') as expired_count
        from (select ${statusExpr(now)} as s, size_bytes, compressed_size_bytes from originals) o`,
    ),
    queryRows<{ metric: string; value: unknown }>(
      db,
      sql`select metric, value from ccr_counters where hour = ${ts(ALL_TIME)}`,
    ),
    queryRows<{ hour: unknown; metric: string; value: unknown }>(
      db,
      sql`select hour, metric, value from ccr_counters where hour >= ${ts(from)} and hour <= ${ts(new Date(currentHour))}`,
    ),
  ]);
  const all = emptyCounts();
  for (const r of totals) if (isMetric(r.metric)) all[r.metric] = Number(r.value);
  const byHour = new Map<number, CcrCounts>();
  for (let h = from.getTime(); h <= currentHour; h += 3_600_000) byHour.set(h, emptyCounts());
  for (const r of hourly) {
    const bucket = byHour.get(date(r.hour)!.getTime());
    if (bucket && isMetric(r.metric)) bucket[r.metric] = Number(r.value);
  }
  const s = store[0];
  const liveBytes = Number(s.live_bytes);
  return {
    config: {
      max_bytes: config.maxBytes,
      default_ttl_seconds: config.defaultTtlSeconds,
      max_original_bytes: MAX_ORIGINAL_BYTES,
      min_prefix_length: MIN_PREFIX_LENGTH,
    },
    store: {
      live_count: Number(s.live_count),
      live_bytes: liveBytes,
      evicted_count: Number(s.evicted_count),
      expired_count: Number(s.expired_count),
      budget_used: liveBytes / config.maxBytes,
    },
    totals: toTotals(all),
    hourly: [...byHour].map(([hour, counts]) => ({ hour: new Date(hour).toISOString(), ...toTotals(counts) })),
  };
}

// ---------------------------------------------------------------------------------------
// The dashboard's own reads: they neither count as retrievals nor refresh recency, so an
// operator looking at an entry never keeps it alive or skews the agents' numbers.

export type OriginalLookup =
  | {
      kind: "found";
      original: OriginalSummaryWire & {
        marker: string;
        original_chars: number | null;
        compressed_chars: number | null;
      };
    }
  | { kind: "ambiguous"; candidates: { hash: string; status: OriginalStatus }[] }
  | { kind: "unknown" };

export async function getOriginalForView(rawKey: string, options: CcrOptions = {}): Promise<OriginalLookup> {
  const now = options.now ?? new Date();
  const parsed = parseHashKey(rawKey);
  if (!parsed.ok) return { kind: "unknown" };
  const db = await getDb();
  const resolved = await resolveKey(db, parsed.key);
  if (resolved === null) return { kind: "unknown" };
  if ("ambiguous" in resolved) return { kind: "ambiguous", candidates: resolved.ambiguous };
  const [row] = await queryRows<RawRow>(
    db,
    sql`select ${SUMMARY_COLUMNS}, length(original) as original_chars, length(compressed) as compressed_chars from originals where hash = ${resolved.hash}`,
  );
  if (!row) return { kind: "unknown" };
  const summary = toSummaryWire(row, now);
  return {
    kind: "found",
    original: {
      ...summary,
      marker: formatMarker(markerKey(summary.hash), summary.original_items, summary.compressed_items),
      original_chars: summary.status === "live" ? num(row.original_chars) : null,
      compressed_chars: summary.status === "live" ? num(row.compressed_chars) : null,
    },
  };
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
  options: CcrOptions = {},
): Promise<{ text: string; total_chars: number; offset: number; content_type: string | null } | null> {
  const now = options.now ?? new Date();
  const db = await getDb();
  const column = sql.raw(part === "original" ? "original" : "compressed");
  const text = slice ? sql`substring(${column} from ${slice.offset + 1}::int for ${slice.length}::int)` : column;
  const [row] = await queryRows<{ text: string | null; total_chars: unknown; content_type: string | null }>(
    db,
    sql`
      select ${text} as text, length(${column}) as total_chars, content_type from originals
      where hash = ${hash} and status = 'live' and (expires_at is null or expires_at > ${ts(now)})`,
  );
  if (!row || row.text === null) return null;
  return {
    text: row.text,
    total_chars: Number(row.total_chars),
    offset: slice?.offset ?? 0,
    content_type: row.content_type,
  };
}

// ---------------------------------------------------------------------------------------
// Links with chains

function toLink(r: RawRow, now: Date): OriginalLink {
  const hash = r.hash as string;
  return {
    hash,
    status: displayStatus(r.status as OriginalStatus, date(r.expires_at), now),
    size_bytes: num(r.size_bytes)!,
    href: `/originals/${hash}`,
  };
}

/**
 * Which of these content hashes (pass input or output hashes, as the passes recorded them)
 * have a stored original, and whether it is live, evicted or expired. Keys of the result
 * are the hashes as given; hashes that are not 12-64 hex characters, unknown hashes and
 * ambiguous prefixes are simply absent.
 */
export async function listOriginalLinksByHash(
  hashes: readonly (string | null | undefined)[],
  options: CcrOptions = {},
): Promise<Map<string, OriginalLink>> {
  const now = options.now ?? new Date();
  const keys = new Map<string, string>();
  for (const given of hashes) {
    if (!given) continue;
    const parsed = parseHashKey(given);
    if (parsed.ok) keys.set(given, parsed.key);
  }
  const links = new Map<string, OriginalLink>();
  if (keys.size === 0) return links;
  const full = [...new Set([...keys.values()].filter((k) => k.length === FULL_HASH_LENGTH))];
  const prefixes = [...new Set([...keys.values()].filter((k) => k.length < FULL_HASH_LENGTH))];
  const db = await getDb();
  const rows = await queryRows<RawRow & { key: string }>(
    db,
    sql`
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(full)}::json) as k(key)
      join originals o on o.hash = k.key
      union all
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(prefixes)}::json) as k(key)
      join originals o on o.hash ~>=~ k.key and o.hash ~<~ (k.key || 'g')`,
  );
  const byKey = new Map<string, RawRow[]>();
  for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  for (const [given, key] of keys) {
    const matches = byKey.get(key);
    if (matches?.length === 1) links.set(given, toLink(matches[0], now));
  }
  return links;
}

/** Everything the chain page needs to link passes and restore boundaries to originals, in one call. */
export async function getChainOriginalLinks(chainId: string, options: CcrOptions = {}): Promise<ChainOriginalLinks> {
  const now = options.now ?? new Date();
  const db = await getDb();
  const [passRows, restoreRows] = await Promise.all([
    queryRows<{ pass_id: string; input_content_hash: string | null; current_content_hash: string }>(
      db,
      sql`select pass_id, input_content_hash, current_content_hash from passes where chain_id = ${chainId}`,
    ),
    queryRows<{ restore_pass_id: string }>(
      db,
      sql`select distinct restore_pass_id from boundaries where chain_id = ${chainId} and strategy = 'restore' and restore_pass_id is not null`,
    ),
  ]);
  const byHash = await listOriginalLinksByHash(
    passRows.flatMap((p) => [p.input_content_hash, p.current_content_hash]),
    { now },
  );
  const passes: ChainOriginalLinks["passes"] = {};
  for (const p of passRows) {
    passes[p.pass_id] = {
      input: (p.input_content_hash && byHash.get(p.input_content_hash)) || null,
      output: byHash.get(p.current_content_hash) ?? null,
    };
  }
  const restores = await listRestoreLinks(
    chainId,
    restoreRows.map((r) => r.restore_pass_id),
    { now },
  );
  return { passes, restores };
}

/**
 * The originals that restore boundaries bring back, for the given restored pass ids only
 * (a chain page must not read every pass of a long chain). Preference order as in
 * `ChainOriginalLinks.restores`.
 */
export async function listRestoreLinks(
  chainId: string,
  passIds: readonly string[],
  options: CcrOptions = {},
): Promise<ChainOriginalLinks["restores"]> {
  if (passIds.length === 0) return {};
  const now = options.now ?? new Date();
  const db = await getDb();
  const ids = JSON.stringify([...new Set(passIds)]);
  const [passRows, recordedRows] = await Promise.all([
    queryRows<{ pass_id: string; input_content_hash: string | null; current_content_hash: string }>(
      db,
      sql`select pass_id, input_content_hash, current_content_hash from passes
          where chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))`,
    ),
    queryRows<RawRow>(
      db,
      sql`select hash, status, expires_at, size_bytes, pass_id from originals
          where chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))
          order by created_at desc, hash`,
    ),
  ]);
  const byHash = await listOriginalLinksByHash(
    passRows.flatMap((p) => [p.input_content_hash, p.current_content_hash]),
    { now },
  );
  const hashesOf = new Map(passRows.map((p) => [p.pass_id, p]));
  const recorded = new Map<string, OriginalLink>();
  for (const r of recordedRows)
    if (r.pass_id && !recorded.has(r.pass_id as string)) recorded.set(r.pass_id as string, toLink(r, now));
  const restores: ChainOriginalLinks["restores"] = {};
  for (const passId of new Set(passIds)) {
    const pass = hashesOf.get(passId);
    const found: [RestoreMatch, OriginalLink | null | undefined][] = [
      ["output_hash", pass && byHash.get(pass.current_content_hash)],
      ["recorded_pass", recorded.get(passId)],
      ["input_hash", pass?.input_content_hash ? byHash.get(pass.input_content_hash) : undefined],
    ];
    const hit = found.find(([, link]) => link);
    if (hit) restores[passId] = { ...hit[1]!, match: hit[0] };
  }
  return restores;
}

/** Passes whose recorded input or output hash is this original's (read-only on passes). */
export async function listPassesForOriginal(hash: string, limit = 100): Promise<MatchingPassWire[]> {
  const db = await getDb();
  const rows = await queryRows<RawRow>(
    db,
    sql`
      select chain_id, pass_id, pass_number, verdict, 'input' as relation from passes where input_content_hash = ${hash}
      union all
      select chain_id, pass_id, pass_number, verdict, 'output' as relation from passes where current_content_hash = ${hash}
      order by chain_id, pass_number, relation
      limit ${limit}`,
  );
  return rows.map((r) => ({
    chain_id: r.chain_id as string,
    pass_id: r.pass_id as string,
    pass_number: num(r.pass_number)!,
    relation: r.relation as "input" | "output",
    verdict: r.verdict as string,
  }));
}
