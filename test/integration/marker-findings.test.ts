// Marker integrity findings (docs/markers.md) through the API and the originals store, on the
// database under test: each kind where it is found (at ingest, when an original goes, when an
// agent asks for one that went), with its pass and hash, in the chain detail, the chains
// list's broken_markers filter, the webhook outbox and /metrics; receipts' context_tools
// stored and bad ones refused.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getChainRoute } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { storeOriginal } from "@/db/queries/originals/store";
import { enforceStoreLimits } from "@/db/queries/originals/eviction";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { getMarkerFindingCounts } from "@/db/queries/marker-findings";
import { formatMarker, markerKey } from "@/lib/originals/marker";
import { renderMetrics } from "@/lib/observability/metrics";
import { call, contentReceipt, expectError, issuePaths, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const markerFor = (text: string) => formatMarker(markerKey(sha(text)));
const passes = (body: unknown) => post(postPasses, "/api/v1/passes", body);

interface Finding {
  kind: string;
  pass_id: string;
  pass_number: number;
  hash?: string;
  detail: string;
}
async function markerFindings(chainId: string): Promise<Finding[]> {
  const answer = await call(getChainRoute, jsonRequest(`/api/v1/chains/${chainId}`), params({ chain_id: chainId }));
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.integrity as Finding[]).filter((f) => f.hash !== undefined);
}
const kinds = (findings: Finding[]) => findings.map((f) => [f.kind, f.pass_number, f.hash]);

function metric(body: string, kind: string): number {
  const series = `floorline_integrity_findings_total{kind="${kind}"}`;
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("marker findings at ingest", () => {
  it("marker_unknown: a marker naming no original here, in either form; a known one is linked", async () => {
    const held = "the full build log, 400 lines of it";
    await storeOriginal({ original: held });
    const foreign = "0123456789abcdef01234567";
    const ccr = "abcdefabcdef0123";
    const before = (await renderMetrics()).body;
    const answer = await passes(
      contentReceipt(
        "mk-unknown",
        1,
        `summary. [Retrieve more: hash=${foreign}] and <<ccr:${ccr}>> ${markerFor(held)}`,
      ),
    );
    expect(answer.status, answer.text).toBe(201);
    expect(kinds(await markerFindings("mk-unknown"))).toEqual([
      ["marker_unknown", 1, foreign],
      ["marker_unknown", 1, ccr],
    ]);
    const after = (await renderMetrics()).body;
    expect(metric(after, "marker_unknown") - metric(before, "marker_unknown")).toBe(2);
    const links = await queryRows(
      await getDb(),
      sql`select pass_id, original_hash from pass_markers where chain_id = 'mk-unknown'`,
      { pass_id: col.text, original_hash: col.text },
    );
    expect(links).toEqual([{ pass_id: "mk-unknown.p1", original_hash: sha(held) }]);
    // Sent again: stored already, nothing found twice.
    expect(
      (
        await passes(
          contentReceipt(
            "mk-unknown",
            1,
            `summary. [Retrieve more: hash=${foreign}] and <<ccr:${ccr}>> ${markerFor(held)}`,
          ),
        )
      ).status,
    ).toBe(200);
    expect(await markerFindings("mk-unknown")).toHaveLength(2);
  });

  it("a marker whose original the same batch caches is not unknown", async () => {
    const output = "pass one's output, cached by its receipt";
    const answer = await passes({
      receipts: [
        contentReceipt("mk-held", 1, output, { cache_original: true }),
        contentReceipt("mk-held", 2, `short. ${markerFor(output)}`),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    expect(await markerFindings("mk-held")).toEqual([]);
  });

  it("marker_nested: the original behind a marker carries a marker that leads nowhere", async () => {
    // The inner original was never stored here (another store's, or re-compressed away).
    const inner = "the inner original: every row of the table";
    const outer = `rows 1-3 of the table. ${markerFor(inner)}`;
    await storeOriginal({ original: outer });
    await passes({
      receipts: [
        contentReceipt("mk-nested", 1, `the agent's view. ${markerFor(outer)}`),
        contentReceipt("mk-nested", 2, "the agent's view, written out again"),
      ],
    });
    const found = await markerFindings("mk-nested");
    expect(kinds(found)).toEqual([["marker_nested", 1, markerKey(sha(outer))]]);
    expect(found[0]?.detail).toContain("leads nowhere");
  });

  it("a marker inside an original this store holds is one more retrieval, no finding", async () => {
    // What the SDKs' cacheOriginals makes each pass: the cached input carries the last marker.
    const report = "the incident report: every line of it";
    const summary = `the summary. ${markerFor(report)}`;
    await storeOriginal({ original: report });
    await storeOriginal({ original: summary });
    await passes({
      receipts: [
        contentReceipt("mk-nested-held", 1, summary),
        contentReceipt("mk-nested-held", 2, `the summary, shorter. ${markerFor(summary)}`),
      ],
    });
    expect(await markerFindings("mk-nested-held")).toEqual([]);
  });

  it("marker_expired: a later pass names an original that expired", async () => {
    const text = "a tool output kept for one minute";
    const stored = new Date(Date.now() - 3_600_000);
    await storeOriginal({ original: text, ttl_seconds: 60 }, { now: stored });
    // Not swept yet: past its TTL is expired all the same.
    await passes(contentReceipt("mk-expired", 1, `seen. ${markerFor(text)}`));
    await enforceStoreLimits();
    await passes(contentReceipt("mk-expired", 2, `seen again. ${markerFor(text)}`));
    const found = await markerFindings("mk-expired");
    expect(kinds(found)).toEqual([
      ["marker_expired", 1, markerKey(sha(text))],
      ["marker_expired", 2, markerKey(sha(text))],
    ]);
    expect(found[1]?.detail).toMatch(/was expired at .* while the chain still pointed at it: Expired: its TTL of 60 s/);
  });

  it("retrieve_recompressed: a pass compresses the text of an original an agent retrieved", async () => {
    const text = "the retrieved original, handed back whole";
    await storeOriginal({ original: text, chain_id: "mk-elsewhere", pass_id: "mk-elsewhere.p1" });
    // Compressed before anyone retrieved it: the first compression, not a finding.
    await passes(contentReceipt("mk-recompress", 1, "a first summary", { input_content_hash: sha(text) }));
    await retrieveOriginal(markerKey(sha(text)));
    await passes(contentReceipt("mk-recompress", 2, "compressed again", { input_content_hash: sha(text) }));
    expect(kinds(await markerFindings("mk-recompress"))).toEqual([["retrieve_recompressed", 2, sha(text)]]);
  });

  it("marker_without_tool: markers sent to a context without a retrieve tool; context_tools stored", async () => {
    const text = "an original the sub-agent cannot reach";
    await storeOriginal({ original: text });
    const content = `for the sub-agent. ${markerFor(text)}`;
    const answer = await passes({
      receipts: [
        contentReceipt("mk-tools", 1, content, { context_tools: ["read_file", "bash"] }),
        contentReceipt("mk-tools", 2, content, { context_tools: ["mcp__floorline__floorline_retrieve", "bash"] }),
        contentReceipt("mk-tools", 3, content, { context_tools: ["headroom_retrieve"] }),
        contentReceipt("mk-tools", 4, content),
        contentReceipt("mk-tools", 5, "no markers here", { context_tools: [] }),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    const found = await markerFindings("mk-tools");
    expect(kinds(found)).toEqual([["marker_without_tool", 1, markerKey(sha(text))]]);
    expect(found[0]?.detail).toContain("2 tools and no retrieve tool");
    const detail = await call(getChainRoute, jsonRequest("/api/v1/chains/mk-tools"), params({ chain_id: "mk-tools" }));
    expect(detail.body.passes.map((p: { context_tools: unknown }) => p.context_tools)).toEqual([
      ["read_file", "bash"],
      ["mcp__floorline__floorline_retrieve", "bash"],
      ["headroom_retrieve"],
      null,
      [],
    ]);
  });

  it("refuses context_tools that are not at most 64 names of at most 128 characters, in the contract's shape", async () => {
    const base = contentReceipt("mk-bad", 1, "x");
    const notAList = await passes({ ...base, context_tools: "bash" });
    expectError(notAList, 422, "validation_failed");
    expect(issuePaths(notAList)).toContain("context_tools");
    const tooMany = await passes({ ...base, context_tools: Array.from({ length: 65 }, (_, i) => `t${i}`) });
    expect(issuePaths(tooMany)).toContain("context_tools");
    const tooLong = await passes({ ...base, context_tools: ["x".repeat(129)] });
    expect(issuePaths(tooLong)).toContain("context_tools.0");
    expect((await passes({ ...base, context_tools: ["x".repeat(128)] })).status).toBe(201);
  });
});

describe("marker findings when an original goes", () => {
  it("an expiry or eviction finds the active chains still pointing at it, once", async () => {
    const text = "an original with a short life";
    await storeOriginal({ original: text, ttl_seconds: 120 });
    await passes(contentReceipt("mk-swept", 1, `pointing. ${markerFor(text)}`));
    expect(await markerFindings("mk-swept")).toEqual([]);
    await enforceStoreLimits({ now: new Date(Date.now() + 600_000) });
    await enforceStoreLimits({ now: new Date(Date.now() + 900_000) });
    expect(kinds(await markerFindings("mk-swept"))).toEqual([["marker_expired", 1, markerKey(sha(text))]]);
  });

  it("a retrieval of a gone original finds the chains active again; a dormant chain is left alone", async () => {
    const text = "an original evicted while its chain slept";
    await storeOriginal({ original: text, ttl_seconds: 120 });
    await passes(contentReceipt("mk-dormant", 1, `pointing. ${markerFor(text)}`));
    const db = await getDb();
    // The chain slept for three days.
    const asleep = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await db.execute(sql`update passes set received_at = ${asleep} where chain_id = 'mk-dormant'`);
    await db.execute(sql`update chains set last_activity_at = ${asleep} where chain_id = 'mk-dormant'`);
    // The original goes now, a day and more after the chain's last pass.
    const justNow = new Date(Date.now() - 60_000).toISOString();
    await db.execute(sql`update originals set expires_at = ${justNow} where hash = ${sha(text)}`);
    await enforceStoreLimits();
    expect(await markerFindings("mk-dormant")).toEqual([]);
    // It wakes: a new pass, without the marker, then an agent asks for the original.
    await passes(contentReceipt("mk-dormant", 2, "awake again"));
    await expect(retrieveOriginal(markerKey(sha(text)))).rejects.toMatchObject({ code: "expired" });
    expect(kinds(await markerFindings("mk-dormant"))).toEqual([["marker_expired", 1, markerKey(sha(text))]]);
  });
});

describe("marker findings everywhere findings go", () => {
  it("the broken_markers filter, the webhook outbox and the overview's counts", async () => {
    const list = await call(listChains, jsonRequest("/api/v1/chains?status=broken_markers&limit=100"));
    expect(list.status, list.text).toBe(200);
    const ids = list.body.items.map((c: { chain_id: string }) => c.chain_id).sort();
    expect(ids).toEqual([
      "mk-dormant",
      "mk-expired",
      "mk-nested",
      "mk-recompress",
      "mk-swept",
      "mk-tools",
      "mk-unknown",
    ]);
    for (const c of list.body.items) expect(c.statuses).toContain("broken_markers");
    const healthy = await call(listChains, jsonRequest("/api/v1/chains?status=healthy&limit=100"));
    expect(healthy.body.items.map((c: { chain_id: string }) => c.chain_id)).not.toContain("mk-unknown");

    const events = await queryRows(
      await getDb(),
      sql`select data from webhook_events where type = 'chain.integrity_finding' and data->>'chain_id' = 'mk-nested'`,
      { data: col.jsonObject },
    );
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({
        kind: "marker_nested",
        pass_number: 1,
        hash: expect.any(String),
        content_class: "default",
      }),
    ]);

    const counts = await getMarkerFindingCounts(null);
    expect(counts.by_kind).toEqual({
      marker_unknown: 2,
      marker_expired: 4,
      marker_nested: 1,
      retrieve_recompressed: 1,
      marker_without_tool: 1,
    });
    expect(counts.chains).toBe(7);
    expect((await getMarkerFindingCounts(new Date(Date.now() + 60_000))).chains).toBe(0);
  });
});
