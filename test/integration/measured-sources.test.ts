// Long because each way a source or a content reaches the measurement (listed below) is a
// chain of its own.
// Measured on ingest beyond one batch: the chain's source kept from an earlier batch or copied
// from the cached original pass 1 names, a pass's content from the cached original its hash
// names, CCR markers that make facts recoverable, `density_source: measured` moving the
// chain's collapse point and status (never `verdict`), unmeasured passes, the
// measurement_mismatch filter, bad content, and retention deleting the source.
import { type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { POST as postOriginal } from "@/app/api/v1/originals/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getPolicyRoute, PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { GET as getRecommendation } from "@/app/api/v1/policies/[content_class]/recommendation/route";
import { getDb } from "@/db/index";
import { deleteExpiredChains } from "@/db/queries/retention";
import { getPolicy } from "@/db/queries/policies";
import { replayClass } from "@/db/queries/what-if";
import { col, onlyRow, queryRows } from "@/db/sql";
import { evaluatePass } from "@/lib/guard/guard";
import { renderMetrics } from "@/lib/observability/metrics";
import { sha256Hex } from "@/lib/guard/hash";
import { measure, measureDetailed } from "@/lib/measure/index";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, post, contentReceipt } from "./api-helpers";

setUpTestDatabase();

const SOURCE =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
const VOID = "The document discusses various topics. The update brings several changes.";
const FLOOR = { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10 };

const receipt = (chainId: string, passNumber: number, content: string | null, extra: Record<string, unknown> = {}) =>
  contentReceipt(chainId, passNumber, content, { content_class: "ms-client", ...extra });

async function putFloor(contentClass: string, body: Record<string, unknown>) {
  const answer = await call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, { method: "PUT", body: { ...FLOOR, ...body } }),
    params({ content_class: contentClass }),
  );
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer;
}

const chain = (id: string) => call(getChain, jsonRequest(`/api/v1/chains/${id}`), params({ chain_id: id }));
const storeOriginal = async (original: string) => {
  const answer = await post(postOriginal, "/api/v1/originals", { original });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.hash as string;
};

describe("measured on ingest, across batches and from cached originals", () => {
  it("keeps the chain's source from pass 1's input_content and measures a later batch against it", async () => {
    await putFloor("ms-client", {});
    const first = await post(postPasses, "/api/v1/passes", receipt("ms-1", 1, SOURCE, { input_content: SOURCE }));
    expect(first.status, first.text).toBe(201);
    expect(first.body.server_checks.semantic_density_score).toBe(
      measure(SOURCE, { source: SOURCE }).semantic_density_score,
    );
    const later = await post(postPasses, "/api/v1/passes", receipt("ms-1", 2, VOID));
    expect(later.status, later.text).toBe(201);
    const expected = measure(VOID, { source: SOURCE });
    expect(expected.semantic_density_score).toBeLessThan(FLOOR.min_semantic_density);
    expect(later.body.server_checks).toMatchObject({
      semantic_density_score: expected.semantic_density_score,
      facts: expected.facts,
      lost_examples: expected.lost_examples,
      measurement_mismatch: true,
    });
    expect(later.body.measurement_mismatch).toBe(true);
    // The reference's answer on the claims is untouched.
    expect(later.body.verdict).toBe(evaluatePass(receipt("ms-1", 2, VOID), FLOOR).verdict);
    expect(later.body.verdict).toBe("SAFE_TO_COMPRESS");
    expect(later.body.checked_verdict).toBe("COLLAPSE_IMMINENT");
    // Stored once per chain, with where it came from.
    const db = await getDb();
    const stored = await queryRows(
      db,
      sql`select origin, sha256, size_bytes from chain_sources where chain_id = 'ms-1'`,
      { origin: col.text, sha256: col.text, size_bytes: col.int },
    );
    expect(stored).toEqual([
      { origin: "input_content", sha256: sha256Hex(SOURCE), size_bytes: Buffer.byteLength(SOURCE) },
    ]);
    // Under density_source client the chain follows the claims: no collapse, but the mismatch is a status.
    const detail = await chain("ms-1");
    expect(detail.body.collapse_point).toBeNull();
    expect(detail.body.passes[1]).toMatchObject({ measurement_mismatch: true, effective_verdict: "SAFE_TO_COMPRESS" });
    expect(detail.body.measurement_mismatches).toBe(1);
  });

  it("copies the source from the cached original pass 1 names, and a pass's content from its hash", async () => {
    const sourceHash = await storeOriginal(SOURCE);
    const voidHash = await storeOriginal(VOID);
    expect(voidHash).toBe(sha256Hex(VOID));
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [
        // Neither receipt carries text: pass 1 names its input, pass 2 its output, both cached.
        receipt("ms-2", 1, null, { input_content_hash: sourceHash, current_content_hash: sha256Hex(SOURCE) }),
        receipt("ms-2", 2, null, { current_content_hash: voidHash, current_size_bytes: Buffer.byteLength(VOID) }),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    const [, second] = answer.body.results;
    expect(second.server_checks).toMatchObject({
      semantic_density_score: measure(VOID, { source: SOURCE }).semantic_density_score,
      hash_matches: true,
      size_matches: true,
      measurement_mismatch: true,
    });
    const db = await getDb();
    const [copied] = await queryRows(db, sql`select origin, source from chain_sources where chain_id = 'ms-2'`, {
      origin: col.text,
      source: col.text,
    });
    expect(copied).toEqual({ origin: "original", source: SOURCE });
    // A later pass measures against the copy, whatever becomes of the cached original.
    await db.execute(sql`update originals set status = 'evicted', original = null where hash = ${sourceHash}`);
    const third = await post(postPasses, "/api/v1/passes", receipt("ms-2", 3, SOURCE));
    expect(third.body.server_checks.semantic_density_score).toBe(
      measure(SOURCE, { source: SOURCE }).semantic_density_score,
    );
  });

  it("counts facts a CCR marker's original states as recoverable, naming the original", async () => {
    const hash = await storeOriginal(SOURCE);
    const marked = `Release 3.9.0 notes. [7 items compressed to 1. Retrieve more: hash=${hash.slice(0, 24)}]`;
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [receipt("ms-3", 1, SOURCE, { input_content: SOURCE }), receipt("ms-3", 2, marked)],
    });
    expect(answer.status, answer.text).toBe(201);
    const second = answer.body.results[1];
    const expected = measureDetailed(marked, { source: SOURCE, originals: new Map([[hash.slice(0, 24), SOURCE]]) });
    expect(expected.facts?.recoverable).toBeGreaterThan(0);
    expect(second.server_checks.facts).toEqual(expected.facts);
    expect(second.server_checks.semantic_density_score).toBe(expected.semantic_density_score);
    expect(second.server_checks.recoverable_examples).toEqual(expected.recoverable_examples);
    expect(second.server_checks.recoverable_examples[0].hash).toBe(hash.slice(0, 24));
    // Without the original the same facts are lost.
    expect(measure(marked, { source: SOURCE }).facts?.recoverable).toBe(0);
  });

  it("with density_source measured, the chain follows the measured verdict; verdict and digest stay the claims'", async () => {
    const put = await putFloor("ms-measured", { density_source: "measured" });
    expect(put.body.density_source).toBe("measured");
    const read = await call(
      getPolicyRoute,
      jsonRequest("/api/v1/policies/ms-measured"),
      params({ content_class: "ms-measured" }),
    );
    expect(read.body).toMatchObject({ density_source: "measured", version: 1 });
    const body = {
      receipts: [
        receipt("ms-4", 1, SOURCE, { input_content: SOURCE, content_class: "ms-measured" }),
        receipt("ms-4", 2, VOID, { content_class: "ms-measured" }),
        // Used with no boundary: past the floor, the chain has collapsed (not only reached it).
        receipt("ms-4", 3, VOID, { content_class: "ms-measured" }),
      ],
    };
    const metricsBefore = (await renderMetrics()).body;
    const answer = await post(postPasses, "/api/v1/passes", body);
    expect(answer.status, answer.text).toBe(201);
    const second = answer.body.results[1];
    const onClaims = evaluatePass(body.receipts[1] as never, FLOOR);
    expect(second.verdict).toBe(onClaims.verdict);
    expect(second.manifest_digest).toBe(onClaims.manifest_digest);
    expect(second.effective_verdict).toBe("COLLAPSE_IMMINENT");
    const detail = await chain("ms-4");
    expect(detail.body.collapse_point).toEqual({ pass_id: "ms-4.p2", pass_number: 2, verdict: "COLLAPSE_IMMINENT" });
    const listed = await call(listChains, jsonRequest("/api/v1/chains?status=collapsed&q=ms-4"));
    expect(listed.body.items.map((c: { chain_id: string }) => c.chain_id)).toEqual(["ms-4"]);
    expect(listed.body.items[0].statuses).toEqual(
      expect.arrayContaining(["collapse_imminent", "measurement_mismatch"]),
    );
    // Alerts and webhooks follow it too: a chain.collapsed event, and the metrics by the measured verdict.
    const db = await getDb();
    const collapsedEvents = async (chainId: string) =>
      queryRows(
        db,
        sql`select data from webhook_events where type = 'chain.collapsed' and data->>'chain_id' = ${chainId}`,
        { data: col.jsonObject },
      );
    expect((await collapsedEvents("ms-4")).map((e) => e.data)).toEqual([
      expect.objectContaining({ pass_id: "ms-4.p2", pass_number: 2, verdict: "COLLAPSE_IMMINENT" }),
    ]);
    const metricsAfter = (await renderMetrics()).body;
    const count = (text: string, series: string) =>
      Number(
        text
          .split("\n")
          .find((line) => line.startsWith(`${series} `))
          ?.split(" ")[1] ?? 0,
      );
    // One collapse; two passes under the floor by their measured density, each a mismatch.
    for (const [series, n] of [
      ['floorline_collapses_total{content_class="ms-measured",verdict="COLLAPSE_IMMINENT"}', 1],
      ['floorline_passes_ingested_total{content_class="ms-measured",verdict="COLLAPSE_IMMINENT"}', 2],
      ['floorline_measurement_mismatches_total{content_class="ms-measured"}', 2],
    ] as const)
      expect(count(metricsAfter, series) - count(metricsBefore, series), series).toBe(n);
    // The same receipts under density_source client do not collapse.
    const client = await post(postPasses, "/api/v1/passes", {
      receipts: body.receipts.map((r) => ({
        ...r,
        chain_id: "ms-5",
        pass_id: r.pass_id.replace("ms-4", "ms-5"),
        content_class: "ms-client",
      })),
    });
    expect(client.status, client.text).toBe(201);
    expect(client.body.results[1].effective_verdict).toBeUndefined();
    expect((await chain("ms-5")).body.collapse_point).toBeNull();
    expect(await collapsedEvents("ms-5")).toEqual([]);
    // A floor saved without the field keeps it; changing it is a new version.
    const kept = await putFloor("ms-measured", { min_semantic_density: 0.31 });
    expect(kept.body).toMatchObject({ version: 2, density_source: "measured" });
    const again = await putFloor("ms-measured", { density_source: "client" });
    expect(again.body).toMatchObject({ version: 3, density_source: "client" });
  });

  it("judges a pass it cannot measure on its claims and marks it unmeasured", async () => {
    await putFloor("ms-measured", { density_source: "measured" });
    const missing = sha256Hex("an original nobody stored");
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [
        receipt("ms-6", 1, null, { input_content: SOURCE, content_class: "ms-measured" }),
        receipt("ms-6", 2, null, {
          current_content_hash: missing,
          content_class: "ms-measured",
          semantic_density_score: 0.1,
        }),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    const second = answer.body.results[1];
    expect(second.unmeasured).toBe(true);
    expect(second.server_checks).toBeUndefined();
    expect(second.verdict).toBe("COLLAPSE_IMMINENT");
    const detail = await chain("ms-6");
    expect(detail.body.passes[1]).toMatchObject({ unmeasured: true, effective_verdict: "COLLAPSE_IMMINENT" });
    // Under density_source client nothing is marked.
    const client = await post(
      postPasses,
      "/api/v1/passes",
      receipt("ms-7", 2, null, { current_content_hash: missing }),
    );
    expect(client.body.unmeasured).toBeUndefined();
  });

  it("stores a pass whose measurement ran past its budget unmeasured, saying why", async () => {
    await putFloor("ms-measured", { density_source: "measured" });
    process.env.FLOORLINE_MEASURE_BUDGET_MS = "1";
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(postPasses, "/api/v1/passes", {
        receipts: [
          receipt("over-budget", 1, null, { input_content: SOURCE, content_class: "ms-measured" }),
          receipt("over-budget", 2, `${VOID} `.repeat(4000), {
            content_class: "ms-measured",
            semantic_density_score: 0.9,
          }),
        ],
      });
    } finally {
      delete process.env.FLOORLINE_MEASURE_BUDGET_MS;
    }
    expect(answer.status, answer.text).toBe(201);
    const second = answer.body.results[1];
    expect(second).toMatchObject({ unmeasured: true, verdict: "SAFE_TO_COMPRESS" });
    expect(second.server_checks.semantic_density_score).toBeUndefined();
    expect(second.server_checks.problems.join(" ")).toContain("could not be measured within its budget");
    // The next batch is measured (the worker that ran past its budget was replaced).
    const next = await post(
      postPasses,
      "/api/v1/passes",
      receipt("over-budget", 3, VOID, { content_class: "ms-measured", semantic_density_score: 0.9 }),
    );
    expect(next.status, next.text).toBe(201);
    expect(next.body.server_checks.semantic_density_score).toBe(
      measure(VOID, { source: SOURCE }).semantic_density_score,
    );
  });

  it("lists chains with a measurement mismatch under their own status filter", async () => {
    const answer = await call(listChains, jsonRequest("/api/v1/chains?status=measurement_mismatch&q=ms-&limit=500"));
    expect(answer.status, answer.text).toBe(200);
    const ids = answer.body.items.map((c: { chain_id: string }) => c.chain_id).sort();
    expect(ids).toEqual(["ms-1", "ms-2", "ms-4", "ms-5"]);
    for (const item of answer.body.items) {
      expect(item.statuses).toContain("measurement_mismatch");
      expect(item.measurement_mismatches).toBeGreaterThan(0);
    }
    const healthy = await call(listChains, jsonRequest("/api/v1/chains?status=healthy&q=ms-&limit=500"));
    for (const item of healthy.body.items) expect(ids).not.toContain(item.chain_id);
  });

  it("measures content that does not parse as a measurement, and refuses content over the limit with 413", async () => {
    await putFloor("ms-json", { format: "json" });
    const broken = '{"order_id": "A-1189", "items": [';
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [
        receipt("ms-8", 1, '{"order_id": "A-1189"}', {
          input_content: '{"order_id": "A-1189"}',
          content_class: "ms-json",
        }),
        receipt("ms-8", 2, broken, { content_class: "ms-json" }),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.results[1].server_checks).toMatchObject({ parseable: false, semantic_density_score: 0 });
    expect(answer.body.results[1].checked_verdict).toBe("FLOOR_BREACH_DETECTED");

    // Under a base64 policy: text that is not base64, and base64 of bytes that are not UTF-8.
    await putFloor("ms-b64", { format: "base64" });
    const base64 = await post(postPasses, "/api/v1/passes", {
      receipts: [
        receipt("ms-9", 1, Buffer.from(SOURCE).toString("base64"), { input_content: SOURCE, content_class: "ms-b64" }),
        receipt("ms-9", 2, "%%%not base64%%%", { content_class: "ms-b64" }),
        receipt("ms-9", 3, "//4AQYCQoLDA0ODw", { content_class: "ms-b64" }),
      ],
    });
    expect(base64.status, base64.text).toBe(201);
    const [encoded, notBase64, notText] = base64.body.results;
    expect(encoded.server_checks).toMatchObject({ parseable: true, measurement_mismatch: false });
    expect(notBase64.server_checks).toMatchObject({ parseable: false, semantic_density_score: 0 });
    expect(notBase64.checked_verdict).toBe("FLOOR_BREACH_DETECTED");
    // The policy's decoded format (any) takes any bytes; what they say measures nothing.
    expect(notText.server_checks).toMatchObject({ parseable: true, semantic_density_score: 0 });
    expect(notText.checked_verdict).toBe("COLLAPSE_IMMINENT");

    const before = await countRows();
    const huge = "x".repeat(4 * 1024 * 1024 + 1);
    for (const body of [
      receipt("ms-10", 1, huge),
      { receipts: [receipt("ms-10", 1, "ok"), receipt("ms-10", 2, "ok", { input_content: huge })] },
    ]) {
      const refused = await post(postPasses, "/api/v1/passes", body);
      const error = expectError(refused, 413, "payload_too_large");
      expect(error.issues?.[0]?.path).toMatch(/content$/);
    }
    expect(await countRows()).toEqual(before);
  });

  it("replays a class with density_source measured on measured density in the floor recommendation", async () => {
    for (const [cls, source] of [
      ["ms-rec-measured", "measured"],
      ["ms-rec-client", "client"],
    ] as const) {
      await putFloor(cls, { density_source: source, min_semantic_density: 0.1 });
      const receipts = [];
      for (let i = 0; i < 14; i++) {
        const id = `${cls}-${i}`;
        const failing = i >= 10;
        // Every claim alike (size and density): only the measurement tells the failing chains apart.
        const claims = { content_class: cls, current_size_bytes: 500 };
        receipts.push(
          receipt(id, 1, SOURCE, { ...claims, input_content: SOURCE }),
          receipt(id, 2, failing ? VOID : SOURCE, claims),
          receipt(id, 3, SOURCE, { ...claims, is_parseable: !failing }),
        );
      }
      expect((await post(postPasses, "/api/v1/passes", { receipts })).status).toBe(201);
    }
    const recommend = (cls: string) =>
      call(getRecommendation, jsonRequest(`/api/v1/policies/${cls}/recommendation`), params({ content_class: cls }));
    const measured = await recommend("ms-rec-measured");
    expect(measured.status, measured.text).toBe(200);
    expect(measured.body.based_on).toMatchObject({ chains: 14, failures: 4 });
    const strict = measured.body.options.find((o: { name: string }) => o.name === "strict");
    expect(strict.failures_caught).toBe(4);
    expect(strict.healthy_halted_early).toBe(0);
    const client = await recommend("ms-rec-client");
    expect(client.status, client.text).toBe(200);
    // On the claims alone the failing chains look like the healthy ones: a floor that stops them
    // stops every chain.
    expect(client.body.current.failures_caught).toBe(0);
    for (const option of client.body.options)
      expect(option.failures_caught === 0 || option.healthy_halted_early === 10, option.name).toBe(true);
    expect(measured.body.current.failures_caught).toBe(4);
    // The what-if replays the same way.
    for (const [cls, collapsed] of [
      ["ms-rec-measured", 4],
      ["ms-rec-client", 0],
    ] as const) {
      const policy = await getPolicy(cls);
      const replayed = await replayClass(cls, policy, policy);
      expect(replayed.filter((c) => c.current?.pass_number === 2).length, cls).toBe(collapsed);
    }
  });

  it("retention deletes a chain's source with the chain", async () => {
    const db = await getDb();
    const count = async (where: SQL) =>
      onlyRow(await queryRows(db, sql`select count(*) as n from chain_sources where ${where}`, { n: col.int })).n;
    expect(await count(sql`chain_id = 'ms-1'`)).toBe(1);
    const run = await deleteExpiredChains({ now: new Date(Date.now() + 400 * 86_400_000), days: 1 });
    expect(run.chains).toBeGreaterThan(0);
    expect(await count(sql`true`)).toBe(0);
  });
});
