// Findings that come from content, not hashes, where a chain's other findings go (issue 44):
// canary loss counted in the chain's integrity_findings and its statuses (`canary_lost`,
// `broken_integrity`), announced as `chain.integrity_finding` webhook events and on /metrics;
// the chains list's per-kind marker filter (`marker_kind`); and canary loss and marker
// findings raising a chain in the default `attention` order. On the database under test.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getChainRoute } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { getDb, summariesSettled } from "@/db/index";
import { RECOMPUTE_CHAIN_ROLLUPS } from "@/db/ingest/rollups";
import { col, queryRows } from "@/db/sql";
import { storeOriginal } from "@/db/queries/originals/store";
import { type Canary, plantCanaries } from "@/lib/canaries/canaries";
import { formatMarker, markerKey } from "@/lib/originals/marker";
import { renderMetrics } from "@/lib/observability/metrics";
import { call, contentReceipt, expectError, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { rawRows } from "../support/raw-rows";

setUpTestDatabase();

const TEXT = "The deploy finished at noon. The cache was warmed. The queue drained.";
const { content: planted, canaries } = plantCanaries(TEXT, { count: 4, seed: "cf-canary" });
const [a, b, c, d] = canaries as [Canary, Canary, Canary, Canary];
const keeping = (...kept: Canary[]) => `summary: ${kept.map((k) => k.text).join(" ")}`;

const passes = (body: unknown) => post(postPasses, "/api/v1/passes", body);
const list = async (query: string) => {
  const answer = await call(listChains, jsonRequest(`/api/v1/chains?${query}`));
  expect(answer.status, answer.text).toBe(200);
  return answer.body.items as { chain_id: string; statuses: string[]; integrity_findings: number }[];
};
const ids = (items: { chain_id: string }[]) => items.map((i) => i.chain_id);
const summary = async (chainId: string) => (await list(`q=${chainId}&limit=200`)).find((i) => i.chain_id === chainId);
const detail = async (chainId: string) =>
  (await call(getChainRoute, jsonRequest(`/api/v1/chains/${chainId}`), params({ chain_id: chainId }))).body;

function metric(body: string, kind: string): number {
  const series = `floorline_integrity_findings_total{kind="${kind}"}`;
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
async function events(chainId: string) {
  const rows = await queryRows(
    await getDb(),
    sql`select data from webhook_events where type = 'chain.integrity_finding' and data->>'chain_id' = ${chainId}
        order by (data->>'pass_number')::int, created_at, data->>'detail'`,
    { data: col.jsonObject },
  );
  return rows.map((r) => r.data as { kind: string; pass_number: number; detail: string; content_class: string });
}

/** A class whose floors these short summaries pass, with `min_canary_retention` when given. */
async function lenientClass(contentClass: string, minCanaryRetention?: number) {
  const put = await call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, {
      method: "PUT",
      body: {
        min_size_bytes: 1,
        min_semantic_density: 0.01,
        max_pass_number: 50,
        ...(minCanaryRetention === undefined ? {} : { min_canary_retention: minCanaryRetention }),
      },
    }),
    params({ content_class: contentClass }),
  );
  expect(put.status, put.text).toBe(201);
}

/** The chain roll-ups' non-zero rows as sorted JSON, to hold what the writers keep to a full recompute. */
async function rollupRows(query: ReturnType<typeof sql>): Promise<string> {
  await summariesSettled();
  const found = await rawRows(await getDb(), query);
  return JSON.stringify(
    found
      .map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, k === "hour" ? new Date(v as string).toISOString() : String(v)]),
        ),
      )
      .filter((r) => Object.entries(r).some(([k, v]) => !["hour", "content_class"].includes(k) && v !== "0"))
      .map((r) => JSON.stringify(r))
      .sort(),
  );
}

describe("canary loss is a finding like the others", () => {
  it("counts in integrity_findings and the statuses, once per finding, across batches", async () => {
    await lenientClass("cf-open");
    const base = { content_class: "cf-open" };
    const metricBefore = metric((await renderMetrics()).body, "canary_lost");
    // Pass 1 loses d; pass 2 (an opaque pass checked by the agent) loses b and c.
    await passes({
      receipts: [
        contentReceipt("cf-canary", 1, keeping(a, b, c), { ...base, canaries, input_content: planted }),
        contentReceipt("cf-canary", 2, null, {
          ...base,
          current_size_bytes: 120,
          canary_check: { surviving: [a.id], checked_text_bytes: 30 },
        }),
      ],
    });
    let row = await summary("cf-canary");
    expect(row?.integrity_findings).toBe(3);
    expect(row?.statuses).toEqual(expect.arrayContaining(["canary_lost", "broken_integrity"]));
    expect(row?.statuses).not.toContain("healthy");
    const lost = (await detail("cf-canary")).integrity.filter((f: { kind: string }) => f.kind === "canary_lost");
    expect(lost).toHaveLength(3);
    expect((await events("cf-canary")).map((e) => [e.kind, e.pass_number, e.content_class])).toEqual([
      ["canary_lost", 1, "cf-open"],
      ["canary_lost", 2, "cf-open"],
      ["canary_lost", 2, "cf-open"],
    ]);
    expect(metric((await renderMetrics()).body, "canary_lost")).toBe(metricBefore + 3);

    // A restore brings every canary back (no finding), the next pass loses a again: one more,
    // and the three already announced are not sent again. The receipt sent twice adds nothing.
    await passes(contentReceipt("cf-canary", 3, keeping(a, b, c, d), base));
    await passes(contentReceipt("cf-canary", 4, keeping(b, c, d), base));
    await passes(contentReceipt("cf-canary", 4, keeping(b, c, d), base));
    row = await summary("cf-canary");
    expect(row?.integrity_findings).toBe(4);
    const announced = await events("cf-canary");
    expect(announced.map((e) => e.pass_number)).toEqual([1, 2, 2, 4]);
    expect(announced[3]?.detail).toContain(a.id);
    expect(metric((await renderMetrics()).body, "canary_lost")).toBe(metricBefore + 4);

    // The overview's roll-ups count the findings as a full recompute of the summaries does.
    expect(await rollupRows(sql`select * from chain_rollups`)).toBe(await rollupRows(RECOMPUTE_CHAIN_ROLLUPS));

    expect(ids(await list("status=canary_lost&limit=200"))).toContain("cf-canary");
    expect(ids(await list("status=broken_integrity&limit=200"))).toContain("cf-canary");
    expect(ids(await list("status=healthy&limit=200"))).not.toContain("cf-canary");
  });

  it("adds to the hash findings, and a pass below the class's canary floor is one more", async () => {
    await lenientClass("cf-floor", 0.5);
    const base = { content_class: "cf-floor" };
    await passes(contentReceipt("cf-floor", 1, keeping(a, b, c, d), { ...base, canaries, input_content: planted }));
    // Pass 3 with no pass 2: a missing_pass (a hash finding), then a, b and c lost, and 25% < 50%.
    await passes(contentReceipt("cf-floor", 3, keeping(d), base));
    const row = await summary("cf-floor");
    const findings = (await detail("cf-floor")).integrity as { kind: string }[];
    expect(findings.map((f) => f.kind).sort()).toEqual([
      "canary_lost",
      "canary_lost",
      "canary_lost",
      "canary_lost",
      "missing_pass",
    ]);
    expect(row?.integrity_findings).toBe(5);
    expect((await events("cf-floor")).filter((e) => e.detail.includes("min_canary_retention"))).toHaveLength(1);
  });

  it("a chain whose canaries all survive stays healthy", async () => {
    const base = { content_class: "cf-open" };
    await passes(contentReceipt("cf-intact", 1, keeping(a, b, c, d), { ...base, canaries, input_content: planted }));
    await passes(contentReceipt("cf-intact", 2, keeping(a, b, c, d), base));
    const row = await summary("cf-intact");
    expect(row?.statuses).toEqual(["healthy"]);
    expect(row?.integrity_findings).toBe(0);
    expect(await events("cf-intact")).toEqual([]);
  });
});

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("marker findings in the chains list", () => {
  it("filters by marker finding kind, one or a comma list; an unknown kind is a 422", async () => {
    await passes(contentReceipt("cf-unknown", 1, "summary. [Retrieve more: hash=0123456789abcdef01234567]"));
    const held = "the whole incident report, kept in the store";
    await storeOriginal({ original: held });
    await passes(
      contentReceipt("cf-no-tool", 1, `summary ${formatMarker(markerKey(sha(held)))}`, {
        context_tools: ["read_file"],
      }),
    );
    expect(ids(await list("marker_kind=marker_unknown&limit=200"))).toEqual(["cf-unknown"]);
    expect(ids(await list("marker_kind=marker_without_tool&limit=200"))).toEqual(["cf-no-tool"]);
    expect(ids(await list("marker_kind=marker_unknown,marker_without_tool&limit=200")).sort()).toEqual([
      "cf-no-tool",
      "cf-unknown",
    ]);
    expect(await list("marker_kind=marker_nested&limit=200")).toEqual([]);
    // With the other filters: both must hold.
    expect(ids(await list("marker_kind=marker_unknown&status=broken_markers&q=cf-&limit=200"))).toEqual(["cf-unknown"]);
    expectError(await call(listChains, jsonRequest("/api/v1/chains?marker_kind=marker_lost")), 422, "invalid_query");
  });
});

describe("the attention order", () => {
  it("puts chains with canary loss or marker findings before healthy chains, whatever their age", async () => {
    // The newest chain of all, healthy.
    await passes(contentReceipt("cf-healthy-newest", 1, "all is well", { content_class: "cf-open" }));
    const order = ids(await list("q=cf-&limit=200"));
    const at = (id: string) => order.indexOf(id);
    expect((await summary("cf-healthy-newest"))?.statuses).toEqual(["healthy"]);
    for (const problem of ["cf-canary", "cf-floor", "cf-unknown", "cf-no-tool"])
      expect(at(problem), problem).toBeLessThan(at("cf-healthy-newest"));
    expect(at("cf-healthy-newest")).toBeLessThan(at("cf-intact"));
  });
});
