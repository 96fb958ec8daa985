// The CCR counters and store figures, all-time and per hour.
import "server-only";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import { col, onlyRow, queryRows } from "../../sql";
import { ccrCounters } from "../../schema";
import { getReadDb } from "../../index";
import {
  CCR_METRICS,
  MAX_ORIGINAL_BYTES,
  MIN_PREFIX_LENGTH,
  emptyCounts,
  hourOf,
  type OriginalsCounts,
  type CcrMetric,
} from "@/lib/originals/rules";
import { summariseSavings, type SavingsSummary } from "@/lib/originals/savings";
import type { OriginalStatsWire, OriginalTotalsWire } from "@/lib/schemas/originals";
import { type OriginalsOptions, getOriginalsConfig, ALL_TIME, statusExpr } from "./shared";

function toTotals(c: OriginalsCounts): OriginalTotalsWire {
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
export async function getOriginalStats(hours = 24, options: OriginalsOptions = {}): Promise<OriginalStatsWire> {
  const now = options.now ?? new Date();
  const config = options.config ?? getOriginalsConfig();
  const db = await getReadDb();
  const currentHour = hourOf(now).getTime();
  const from = new Date(currentHour - (hours - 1) * 3_600_000);
  const [store, totals, hourly] = await Promise.all([
    queryRows(
      db,
      sql`
        select
          count(*) filter (where s = 'live') as live_count,
          coalesce(sum(size_bytes + coalesce(compressed_size_bytes, 0)) filter (where s = 'live'), 0) as live_bytes,
          count(*) filter (where s = 'evicted') as evicted_count,
          count(*) filter (where s = 'expired') as expired_count
        from (select ${statusExpr(now)} as s, size_bytes, compressed_size_bytes from originals) o`,
      { live_count: col.int, live_bytes: col.int, evicted_count: col.int, expired_count: col.int },
    ),
    db
      .select({ metric: ccrCounters.metric, value: ccrCounters.value })
      .from(ccrCounters)
      .where(eq(ccrCounters.hour, ALL_TIME)),
    db
      .select({ hour: ccrCounters.hour, metric: ccrCounters.metric, value: ccrCounters.value })
      .from(ccrCounters)
      .where(and(gte(ccrCounters.hour, from), lte(ccrCounters.hour, new Date(currentHour)))),
  ]);
  const all = emptyCounts();
  for (const r of totals) if (isMetric(r.metric)) all[r.metric] = r.value;
  const byHour = new Map<number, OriginalsCounts>();
  for (let h = from.getTime(); h <= currentHour; h += 3_600_000) byHour.set(h, emptyCounts());
  for (const r of hourly) {
    const bucket = byHour.get(r.hour.getTime());
    if (bucket && isMetric(r.metric)) bucket[r.metric] = r.value;
  }
  const s = onlyRow(store);
  const liveBytes = s.live_bytes;
  return {
    config: {
      max_bytes: config.maxBytes,
      default_ttl_seconds: config.defaultTtlSeconds,
      max_original_bytes: MAX_ORIGINAL_BYTES,
      min_prefix_length: MIN_PREFIX_LENGTH,
    },
    store: {
      live_count: s.live_count,
      live_bytes: liveBytes,
      evicted_count: s.evicted_count,
      expired_count: s.expired_count,
      budget_used: liveBytes / config.maxBytes,
    },
    totals: toTotals(all),
    hourly: [...byHour].map(([hour, counts]) => ({ hour: new Date(hour).toISOString(), ...toTotals(counts) })),
  };
}
