import "server-only";
import { and, count, eq, inArray } from "drizzle-orm";
import { getDb } from "../../index";
import { ccrCounters, originals } from "../../schema";
import type { StoreStats } from "@/lib/observability/metrics";
import { ALL_TIME } from "./shared";

/**
 * The CCR store gauges for a scrape. Live entries and bytes come from the all-time counters
 * (a handful of primary-key reads, whatever the store's size): everything stored minus
 * everything evicted or expired. Tombstones are counted from the table, since a tombstone
 * brought back to life leaves no counter of its own; the metrics module caches the answer.
 * An entry past its TTL that no sweep has reached yet still counts as live here.
 */
export async function getStoreStats(): Promise<StoreStats> {
  const db = await getDb();
  const [counters, tombstones] = await Promise.all([
    db
      .select({ metric: ccrCounters.metric, value: ccrCounters.value })
      .from(ccrCounters)
      .where(
        and(
          eq(ccrCounters.hour, ALL_TIME),
          inArray(ccrCounters.metric, [
            "stored",
            "stored_bytes",
            "evictions",
            "evicted_bytes",
            "expiries",
            "expired_bytes",
          ]),
        ),
      ),
    db
      .select({ status: originals.status, n: count() })
      .from(originals)
      .where(inArray(originals.status, ["evicted", "expired"]))
      .groupBy(originals.status),
  ]);
  const c = Object.fromEntries(counters.map((r) => [r.metric, r.value]));
  const t = Object.fromEntries(tombstones.map((r) => [r.status, r.n]));
  const v = (k: string) => c[k] ?? 0;
  return {
    bytes: Math.max(0, v("stored_bytes") - v("evicted_bytes") - v("expired_bytes")),
    entries: {
      live: Math.max(0, v("stored") - v("evictions") - v("expiries")),
      evicted: t.evicted ?? 0,
      expired: t.expired ?? 0,
    },
  };
}
