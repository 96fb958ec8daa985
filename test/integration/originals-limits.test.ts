// The bounded store: byte budget with least-recently-retrieved eviction, TTLs and their
// sweep, tombstones, and concurrent writers. Time is injected, never slept.
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as collection from "@/app/api/v1/originals/route";
import * as retrieve from "@/app/api/v1/retrieve/route";
import { getDb } from "@/db/index";
import { originals } from "@/db/schema";
import { col, queryRows } from "@/db/sql";
import { enforceStoreLimits } from "@/db/queries/originals/eviction";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { storeOriginal } from "@/db/queries/originals/store";
import { ApiError } from "@/lib/errors";
import { sha256Hex } from "@/lib/guard/hash";
import type { OriginalsConfig } from "@/lib/originals/rules";
import { post } from "./api-helpers";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

async function allRows() {
  const rows = await (await getDb())
    .select({
      hash: originals.hash,
      status: originals.status,
      original: originals.original,
      size_bytes: originals.sizeBytes,
      gone_at: originals.goneAt,
      gone_reason: originals.goneReason,
      expires_at: originals.expiresAt,
    })
    .from(originals);
  return new Map(rows.map((r) => [r.hash, r]));
}

async function clear(): Promise<void> {
  const db = await getDb();
  await db.execute(sql`delete from originals`);
  await db.execute(sql`delete from ccr_counters`);
}

const KB = (label: string) => `${label}:` + "x".repeat(1000 - label.length - 1);
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes));
const budget = (maxBytes: number, defaultTtlSeconds: number | null = null): OriginalsConfig => ({
  maxBytes,
  defaultTtlSeconds,
});

async function statusOf(text: string): Promise<string> {
  return (await allRows()).get(sha256Hex(text))!.status;
}

describe("byte budget", () => {
  afterEach(clear);

  it("evicts the least recently retrieved first; a retrieval refreshes recency", async () => {
    const config = budget(3000);
    await storeOriginal({ original: KB("A") }, { now: at(0), config });
    await storeOriginal({ original: KB("B") }, { now: at(1), config });
    await storeOriginal({ original: KB("C") }, { now: at(2), config });
    // A is the oldest store but the most recent retrieval.
    await retrieveOriginal(sha256Hex(KB("A")), { now: at(3) });

    await storeOriginal({ original: KB("D") }, { now: at(4), config });
    expect(await statusOf(KB("B"))).toBe("evicted");
    expect([await statusOf(KB("A")), await statusOf(KB("C")), await statusOf(KB("D"))]).toEqual([
      "live",
      "live",
      "live",
    ]);

    await storeOriginal({ original: KB("E") }, { now: at(5), config });
    expect(await statusOf(KB("C"))).toBe("evicted");
    expect(await statusOf(KB("A"))).toBe("live");

    await storeOriginal({ original: KB("F") }, { now: at(6), config });
    expect(await statusOf(KB("A"))).toBe("evicted");

    const b = (await allRows()).get(sha256Hex(KB("B")))!;
    expect(b.original).toBeNull();
    expect(b.size_bytes).toBe(1000);
    expect(b.gone_at?.toISOString()).toBe(at(4).toISOString());
    expect(b.gone_reason).toMatch(
      /least recently retrieved.*never retrieved since it was stored 2026-01-01T12:01:00.000Z/,
    );
    const a = (await allRows()).get(sha256Hex(KB("A")))!;
    expect(a.gone_reason).toMatch(/last retrieved 2026-01-01T12:03:00.000Z/);

    const stats = await getOriginalStats(24, { now: at(6), config });
    expect(stats.totals).toMatchObject({ stored: 6, evictions: 3, evicted_bytes: 3000 });
    expect(stats.store).toMatchObject({ live_count: 3, live_bytes: 3000, evicted_count: 3 });
  });

  it("evicts as many entries as it takes to fit a large newcomer, and counts compressed text against the budget", async () => {
    const config = budget(4000);
    await storeOriginal({ original: KB("A") }, { now: at(0), config });
    await storeOriginal({ original: KB("B") }, { now: at(1), config });
    await storeOriginal({ original: KB("C"), compressed: "c".repeat(500) }, { now: at(2), config });
    const big = "big:" + "y".repeat(2496);
    await storeOriginal({ original: big }, { now: at(3), config });
    // 1000 + 1000 + 1500 + 2500 = 6000; A and B (2000 freed) bring it to the budget.
    expect([await statusOf(KB("A")), await statusOf(KB("B")), await statusOf(KB("C")), await statusOf(big)]).toEqual([
      "evicted",
      "evicted",
      "live",
      "live",
    ]);
    expect((await getOriginalStats(24, { now: at(3), config })).store.live_bytes).toBe(4000);
  });

  it("refuses an entry larger than the whole budget with 413 instead of emptying the store", async () => {
    const config = budget(1500);
    await storeOriginal({ original: KB("A") }, { now: at(0), config });
    await expect(storeOriginal({ original: "z".repeat(1600) }, { now: at(1), config })).rejects.toMatchObject({
      code: "payload_too_large",
    });
    expect(await statusOf(KB("A"))).toBe("live");
  });

  it("reads CCR_MAX_BYTES from the environment through the API", async () => {
    process.env.CCR_MAX_BYTES = "2000";
    try {
      for (const label of ["A", "B", "C"])
        expect((await post(collection.POST, "/api/v1/originals", { original: KB(label) })).status).toBe(201);
      const answer = await post(retrieve.POST, "/api/v1/retrieve", { hash: sha256Hex(KB("A")) });
      expect(answer.status).toBe(410);
      expect(answer.body.error.code).toBe("evicted");
      expect(answer.body.error.message).toMatch(/CCR_MAX_BYTES=2000/);
    } finally {
      delete process.env.CCR_MAX_BYTES;
    }
  });
});

describe("TTL", () => {
  afterEach(clear);

  it("uses the entry's own TTL, else CCR_TTL_SECONDS; 0 or none means the default, which may be none", async () => {
    const withDefault = budget(1_000_000, 600);
    const own = await storeOriginal({ original: "own ttl", ttl_seconds: 30 }, { now: at(0), config: withDefault });
    expect(own.result.expires_at).toBe(new Date(at(0).getTime() + 30_000).toISOString());
    const zero = await storeOriginal({ original: "zero ttl", ttl_seconds: 0 }, { now: at(0), config: withDefault });
    expect(zero.result.expires_at).toBe(new Date(at(0).getTime() + 600_000).toISOString());
    const none = await storeOriginal({ original: "no ttl anywhere" }, { now: at(0), config: budget(1_000_000) });
    expect(none.result.expires_at).toBeNull();
    await expect(
      retrieveOriginal(sha256Hex("no ttl anywhere"), { now: new Date(Date.UTC(2090, 0, 1)) }),
    ).resolves.toMatchObject({ status: "live" });
  });

  it("expires at the TTL exactly: live one millisecond before, 410 at the instant", async () => {
    const { result } = await storeOriginal(
      { original: "precise", ttl_seconds: 60 },
      { now: at(0), config: budget(1_000_000) },
    );
    const expiry = new Date(result.expires_at!).getTime();
    await expect(retrieveOriginal(result.hash, { now: new Date(expiry - 1) })).resolves.toMatchObject({
      original: "precise",
    });
    const miss = await retrieveOriginal(result.hash, { now: new Date(expiry) }).catch((e: unknown) => e);
    expect(miss).toBeInstanceOf(ApiError);
    expect((miss as ApiError).code).toBe("expired");
    expect((miss as ApiError).status).toBe(410);
  });

  it("a repeat store extends the expiry but never shortens it", async () => {
    const config = budget(1_000_000);
    await storeOriginal({ original: "repeat", ttl_seconds: 120 }, { now: at(0), config });
    const longer = await storeOriginal({ original: "repeat", ttl_seconds: 600 }, { now: at(1), config });
    expect(longer.created).toBe(false);
    expect(longer.result.expires_at).toBe(new Date(at(1).getTime() + 600_000).toISOString());
    const shorter = await storeOriginal({ original: "repeat", ttl_seconds: 5 }, { now: at(2), config });
    expect(shorter.result.expires_at).toBe(longer.result.expires_at);
  });

  it("a store of an entry past its TTL that no sweep reached starts it afresh and counts its expiry once", async () => {
    const config = budget(1_000_000);
    await storeOriginal({ original: "unswept", ttl_seconds: 60 }, { now: at(0), config });
    expect(await statusOf("unswept")).toBe("live");
    const again = await storeOriginal({ original: "unswept", ttl_seconds: 60 }, { now: at(5), config });
    expect(again.created).toBe(true);
    expect(again.result.expires_at).toBe(new Date(at(5).getTime() + 60_000).toISOString());
    const stats = await getOriginalStats(24, { now: at(5), config });
    expect(stats.totals).toMatchObject({ expiries: 1, expired_bytes: Buffer.byteLength("unswept") });
    expect(stats.store.live_bytes).toBe(Buffer.byteLength("unswept"));
  });

  it("sweeps expired entries during writes, keeping a tombstone dated when the TTL ran out", async () => {
    const config = budget(1_000_000);
    await storeOriginal({ original: "sweep me", ttl_seconds: 60 }, { now: at(0), config });
    await storeOriginal({ original: "still fresh", ttl_seconds: 3600 }, { now: at(0), config });
    await storeOriginal({ original: "unrelated write" }, { now: at(5), config });
    const swept = (await allRows()).get(sha256Hex("sweep me"))!;
    expect(swept).toMatchObject({ status: "expired", original: null });
    expect(swept.gone_at?.toISOString()).toBe(new Date(at(0).getTime() + 60_000).toISOString());
    expect(swept.gone_reason).toMatch(/TTL of 60 s ran out at 2026-01-01T12:01:00.000Z/);
    expect(await statusOf("still fresh")).toBe("live");
    const stats = await getOriginalStats(24, { now: at(5), config });
    expect(stats.totals).toMatchObject({ expiries: 1, expired_bytes: Buffer.byteLength("sweep me") });
    // Expired entries no longer count against the budget.
    expect(stats.store.live_bytes).toBe(Buffer.byteLength("still fresh") + Buffer.byteLength("unrelated write"));
  });

  it("one sweep expires every entry past its TTL, and they stop counting as live", async () => {
    const config = budget(10_000_000);
    for (let i = 0; i < 30; i++)
      await storeOriginal({ original: `batch ${i}`, ttl_seconds: 1 }, { now: at(0), config });
    const { expired } = await enforceStoreLimits({ now: at(1), config });
    expect(expired).toBe(30);
    expect((await getOriginalStats(24, { now: at(1), config })).store.live_count).toBe(0);
  });
});

describe("concurrent writers", () => {
  afterEach(clear);

  it("many parallel stores, with repeats, stay consistent: one row per key, within budget, counters exact", async () => {
    const config = budget(20 * 1000);
    const distinct = Array.from({ length: 40 }, (_, i) => KB(`P${i}`));
    const repeated = KB("same");
    const jobs = [
      ...distinct.map((original) => storeOriginal({ original }, { config })),
      ...Array.from({ length: 10 }, () => storeOriginal({ original: repeated }, { config })),
    ];
    const results = await Promise.allSettled(jobs);
    const failures = results.filter((r) => r.status === "rejected");
    expect(failures, JSON.stringify(failures.slice(0, 2))).toHaveLength(0);
    const outcomes = results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof storeOriginal>>>).value);
    // Each repeat is a deduplication, unless the budget evicted the original in the meantime:
    // then that repeat stores it again (created) after one more eviction.
    const createdRepeats = outcomes.filter((o) => o.result.hash === sha256Hex(repeated) && o.created).length;
    expect(createdRepeats).toBeGreaterThanOrEqual(1);

    const rows = await allRows();
    expect(rows.size).toBe(41);
    const live = [...rows.values()].filter((r) => r.status === "live");
    const evicted = [...rows.values()].filter((r) => r.status === "evicted");
    expect(live.reduce((sum, r) => sum + r.size_bytes, 0)).toBeLessThanOrEqual(config.maxBytes);
    expect(live.length + evicted.length).toBe(41);
    for (const row of live) expect(row.original).not.toBeNull();
    for (const row of evicted) expect(row.original).toBeNull();

    const stats = await getOriginalStats(24, { config });
    const evictions = evicted.length + (createdRepeats - 1);
    expect(stats.totals).toMatchObject({
      stored: 40 + createdRepeats,
      deduplicated: 10 - createdRepeats,
      evictions,
      evicted_bytes: evictions * 1000,
    });
    // The all-time rows the store reads its usage from agree with the hourly rows, metric by metric.
    const mismatches = await queryRows(
      await getDb(),
      sql`
        select coalesce(a.metric, h.metric) as metric from
          (select metric, value from ccr_counters where hour = 'epoch'::timestamptz) a
          full join (select metric, sum(value) as value from ccr_counters where hour > 'epoch'::timestamptz group by metric) h
          on a.metric = h.metric
        where a.value is distinct from h.value`,
      { metric: col.text },
    );
    expect(mismatches).toEqual([]);
  });

  it("retrievals racing with eviction either get the original or a 410, never an error or a partial row", async () => {
    const config = budget(10 * 1000);
    const first = Array.from({ length: 10 }, (_, i) => KB(`R${i}`));
    for (const original of first) await storeOriginal({ original }, { config });
    const newcomers = Array.from({ length: 10 }, (_, i) => KB(`N${i}`));
    const settled = await Promise.allSettled([
      ...newcomers.map((original) => storeOriginal({ original }, { config })),
      ...first.map((original) => retrieveOriginal(sha256Hex(original))),
    ]);
    for (const [i, outcome] of settled.entries()) {
      if (outcome.status === "fulfilled") continue;
      expect(i, String(outcome.reason)).toBeGreaterThanOrEqual(newcomers.length);
      expect(outcome.reason).toBeInstanceOf(ApiError);
      expect(["evicted"]).toContain((outcome.reason as ApiError).code);
    }
    for (const outcome of settled.slice(newcomers.length)) {
      if (outcome.status === "fulfilled") expect(first).toContain((outcome.value as { original: string }).original);
    }
    const live = [...(await allRows()).values()].filter((r) => r.status === "live");
    expect(live.reduce((sum, r) => sum + r.size_bytes, 0)).toBeLessThanOrEqual(config.maxBytes);
  });
});
