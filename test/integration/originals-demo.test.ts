// The demo originals show every state the store can be in, link to the demo chain's
// restore boundary, and seed only once.
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoOriginals } from "@/db/demo-originals";
import { getRecordedPass, listPassesForOriginal } from "@/db/queries/originals/links";
import { getChainOriginalLinks } from "../support/chain-original-links";
import { getOriginalText } from "@/db/queries/originals/view";
import { describeChange, diffContent } from "@/lib/originals/diff";
import { provenanceOf } from "@/lib/originals/provenance";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { listOriginals } from "@/db/queries/originals/browse";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

beforeAll(async () => {
  // 0 when demo/seed.ts already seeds the originals itself.
  expect([0, 5]).toContain(await seedDemoOriginals());
});

describe("seedDemoOriginals", () => {
  it("stores live, evicted and expired entries, retrievals and misses of every kind but ambiguous", async () => {
    const { items } = await listOriginals({ sort: "created", order: "desc", limit: 50 }, undefined);
    // Beside the inputs that demo chains' clients cached (cacheOriginals: demo/nested-marker.ts, demo/facts.ts).
    const cachedByClients = ["demo-nested-marker", "demo-facts-restored"];
    const own = items.filter((i) => !cachedByClients.includes(i.chain_id ?? ""));
    expect(items.filter((i) => i.chain_id === "demo-nested-marker")).toHaveLength(3);
    expect(own.map((i) => i.status).sort()).toEqual(["evicted", "expired", "live", "live", "live"]);
    const stats = await getOriginalStats(24);
    expect(stats.totals).toMatchObject({ stored: items.length, retrieved: 2, evictions: 1, expiries: 1 });
    expect(stats.totals.misses).toMatchObject({ unknown: 1, evicted: 1, expired: 1 });
    expect(stats.totals.tokens.net).toBe(stats.totals.tokens.saved_gross - stats.totals.tokens.respent);
    expect(await seedDemoOriginals()).toBe(0);
  });

  it("shows what compression lost from the demo orders and one account of where they came from", async () => {
    const { items } = await listOriginals(
      { sort: "created", order: "desc", limit: 50, q: "demo-schema-truncation" },
      undefined,
    );
    const hash = items[0]?.hash ?? "";
    const [a, b] = await Promise.all([
      getOriginalText(hash, "original", null),
      getOriginalText(hash, "compressed", null),
    ]);
    const diff = diffContent(a?.text ?? "", b?.text ?? "");
    expect(diff.kind === "json" ? diff.changes.map(describeChange) : diff).toEqual([
      "items[].sku dropped in all 96 items",
    ]);
    const recorded = await getRecordedPass("demo-schema-truncation", "demo-schema-truncation.p4");
    const provenance = provenanceOf(
      hash,
      "demo-schema-truncation",
      "demo-schema-truncation.p4",
      recorded,
      await listPassesForOriginal(hash),
    );
    // The original is pass 4's output, the content the restore rolls back to: its hash is the
    // one pass 4's receipt names (and pass 5's, whose input it was), not a look-alike.
    expect(provenance).toMatchObject({ source: { kind: "confirmed", relation: "output", pass: { pass_number: 4 } } });
  });

  it("gives the demo chain's restore boundary the original it rolls back to", async () => {
    const links = await getChainOriginalLinks("demo-schema-truncation");
    expect(links.restores["demo-schema-truncation.p4"]).toMatchObject({ status: "live", match: "output_hash" });
  });
});
