// Measured on ingest: a receipt with content whose chain's source is in the batch (pass 1's
// input_content) is measured; the answer and the stored row carry the measurement, the
// checked verdict uses it, and a void pass that claims a high density is a measurement mismatch.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { GET as exportChains } from "@/app/api/v1/exports/chains/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT } from "@/app/api/v1/policies/[content_class]/route";
import { getDb } from "@/db/index";
import { evaluatePass } from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";
import { measure } from "@/lib/measure/index";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, contentReceipt, post } from "./api-helpers";

setUpTestDatabase();

const { chains } = JSON.parse(readFileSync("test/fixtures/measurement/chains.json", "utf8"));
const notes = chains[0];
const FLOOR = { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10 };

const receipt = (chainId: string, passNumber: number, content: string, extra: Record<string, unknown> = {}) =>
  contentReceipt(chainId, passNumber, content, { content_class: "measured-cc", ...extra });

describe("measured on ingest", () => {
  const faithful = notes.passes[0].content;
  const voided = notes.passes[4].content;

  it("measures passes against pass 1's input_content and flags a void that claims density", async () => {
    const put = await call(
      PUT,
      jsonRequest("/api/v1/policies/measured-cc", { method: "PUT", body: FLOOR }),
      params({ content_class: "measured-cc" }),
    );
    expect(put.status, put.text).toBeLessThan(300);
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [
        receipt("m-1", 1, faithful, { input_content: notes.source }),
        receipt("m-1", 2, voided, { current_size_bytes: Buffer.byteLength(voided) }),
      ],
    });
    expect(answer.status, answer.text).toBe(201);
    const [first, second] = answer.body.results;
    const expected = measure(voided, { source: notes.source, format: "any" });
    expect(second.server_checks).toMatchObject({
      semantic_density_score: expected.semantic_density_score,
      components: expected.components,
      method: "floorline-facts/4",
      facts: expected.facts,
      lost_examples: expected.lost_examples,
      measurement_mismatch: true,
    });
    // The void claims 0.9 and passes the floor on its claims; measured, it breaches it.
    expect(second.verdict).toBe(evaluatePass(receipt("m-1", 2, voided), FLOOR).verdict);
    expect(second.checked_verdict).toBe(
      evaluatePass({ ...receipt("m-1", 2, voided), semantic_density_score: expected.semantic_density_score }, FLOOR)
        .verdict,
    );
    expect(second.checked_verdict).not.toBe(second.verdict);
    expect(second.measurement_mismatch).toBe(true);
    expect(first.measurement_mismatch).toBe(false);
    expect(first.server_checks.semantic_density_score).toBe(
      measure(faithful, { source: notes.source }).semantic_density_score,
    );
    const stored = await call(getChain, jsonRequest("/api/v1/chains/m-1"), params({ chain_id: "m-1" }));
    expect(stored.body.passes[1].server_checks.semantic_density_score).toBe(expected.semantic_density_score);
    expect(stored.body.passes[1].server_checks).toMatchObject({
      components: expected.components,
      method: "floorline-facts/4",
    });
  });

  it("keeps a pass measured before floorline-facts/4 as it was, saying so", async () => {
    const answer = await post(postPasses, "/api/v1/passes", {
      receipts: [receipt("m-3", 1, faithful, { input_content: notes.source }), receipt("m-3", 2, voided)],
    });
    expect(answer.status, answer.text).toBe(201);
    // As floorline-facts/3 stored it: no method, no components, its own density.
    const db = await getDb();
    await db.execute(
      sql`update passes set server_checks = (server_checks - 'method' - 'components') || '{"semantic_density_score": 0.0123}'::jsonb, measured_density = 0.0123 where chain_id = 'm-3' and pass_number = 2`,
    );
    const later = await post(postPasses, "/api/v1/passes", receipt("m-3", 3, voided));
    expect(later.status, later.text).toBe(201);
    expect(later.body.server_checks.method).toBe("floorline-facts/4");
    const stored = await call(getChain, jsonRequest("/api/v1/chains/m-3"), params({ chain_id: "m-3" }));
    const old = stored.body.passes[1].server_checks;
    expect(old.semantic_density_score).toBe(0.0123);
    expect(old.method).toBeUndefined();
    expect(old.components).toBeUndefined();
    expect(stored.body.passes[1].measured_density ?? old.semantic_density_score).toBe(0.0123);
  });

  it("leaves a pass unmeasured without the chain's source", async () => {
    const answer = await post(postPasses, "/api/v1/passes", receipt("m-2", 2, voided));
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.server_checks.semantic_density_score).toBeUndefined();
    expect(answer.body.measurement_mismatch).toBeUndefined();
  });
});

describe("a chain's lowest measured density", () => {
  const [faithful, lossy, , voided] = notes.passes.map((p: { content: string }) => p.content) as [
    string,
    string,
    string,
    string,
  ];
  const score = (content: string) => measure(content, { source: notes.source }).semantic_density_score;
  const ingest = async (receipts: unknown[]) => {
    const answer = await post(postPasses, "/api/v1/passes", { receipts });
    expect(answer.status, answer.text).toBe(201);
  };
  const list = async (query: string) => {
    const answer = await call(listChains, jsonRequest(`/api/v1/chains?q=lo-&${query}`));
    expect(answer.status, answer.text).toBe(200);
    return answer.body as {
      items: { chain_id: string; min_measured_density?: number | null }[];
      next_cursor: string | null;
    };
  };

  it("is folded batch by batch, recomputed for a late pass, listed, sorted, paged and exported", async () => {
    const claimsOnly = (chainId: string, n: number) => {
      const { content: _, ...bare } = receipt(chainId, n, faithful);
      return bare;
    };
    // lo-void: a faithful pass then a void one; a later batch's faithful pass keeps the void's minimum.
    await ingest([receipt("lo-void", 1, faithful, { input_content: notes.source }), receipt("lo-void", 2, voided)]);
    await ingest([receipt("lo-void", 3, faithful)]);
    // lo-late: faithful, then a lossy pass 2 arriving after pass 3: its chain is recomputed in full.
    await ingest([receipt("lo-late", 1, faithful, { input_content: notes.source }), receipt("lo-late", 3, faithful)]);
    await ingest([receipt("lo-late", 2, lossy)]);
    // lo-kept: faithful only. lo-claims: no content, so nothing measured.
    await ingest([receipt("lo-kept", 1, faithful, { input_content: notes.source }), claimsOnly("lo-claims", 1)]);

    const expected = new Map<string, number | null>([
      ["lo-void", Math.min(score(faithful), score(voided))],
      ["lo-late", Math.min(score(faithful), score(lossy))],
      ["lo-kept", score(faithful)],
      ["lo-claims", null],
    ]);
    expect(new Set(expected.values()).size).toBe(4);
    const ascending = [...expected].sort(([, a], [, b]) => (a ?? 2) - (b ?? 2)).map(([id]) => id);

    const sorted = await list("sort=min_measured_density");
    expect(sorted.items.map((c) => c.chain_id)).toEqual(ascending);
    for (const c of sorted.items) expect(c.min_measured_density, c.chain_id).toBe(expected.get(c.chain_id));
    // The claim is another figure: every pass here claims 0.9.
    expect(
      (await list("sort=min_density")).items.every(
        (c) => (c as { min_semantic_density?: number }).min_semantic_density === 0.9,
      ),
    ).toBe(true);

    // One chain a page, by the cursor, in the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`sort=min_measured_density&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...page.items.map((c) => c.chain_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(ascending);

    const csv = await call(exportChains, jsonRequest("/api/v1/exports/chains?q=lo-&sort=min_measured_density"));
    expect(csv.status, csv.text).toBe(200);
    const [header, ...lines] = csv.text.trim().split(/\r?\n/);
    const column = (header as string).split(",").indexOf("min_measured_density");
    expect(column).toBeGreaterThan(0);
    expect(lines.map((line) => line.split(",")[column])).toEqual(
      ascending.map((id) => (expected.get(id) === null ? "" : String(expected.get(id)))),
    );
  });
});
