// Canaries through the API (docs/canaries.md): stored with the pass that planted them, survival
// answered where the server read the content or a canary_check came, canary_lost findings on
// the chain, the policy's min_canary_retention, and bad canaries refused whole.
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getChainRoute } from "@/app/api/v1/chains/[chain_id]/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { countCanaryRetention, getCanarySeries, getCanaryView } from "@/db/queries/canaries";
import { type Canary, plantCanaries } from "@/lib/canaries/canaries";
import { call, contentReceipt, countRows, expectError, issuePaths, post } from "./api-helpers";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const LOG = "2026-11-30T10:00:07Z INFO checkout started\n2026-11-30T10:00:12Z ERROR payment failed: ECONNRESET\n";
const { content: planted, canaries } = plantCanaries(LOG, { count: 4, seed: "cn-chain" });
const [a, b, c, d] = canaries as [Canary, Canary, Canary, Canary];
const keeping = (...kept: Canary[]) => `summary: ${kept.map((k) => k.text).join(" ")}`;

const passes = (body: unknown) => post(postPasses, "/api/v1/passes", body);
const chain = async (chainId: string) =>
  (await call(getChainRoute, jsonRequest(`/api/v1/chains/${chainId}`), params({ chain_id: chainId }))).body;

describe("canaries on receipts", () => {
  it("are stored with the planting pass, and every later pass says which survive", async () => {
    const first = await passes(
      contentReceipt("cn-chain", 1, keeping(a, b, c), { canaries, input_content: planted, content_class: "cn" }),
    );
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ canaries_surviving: [a.id, b.id, c.id], canary_retention: 0.75 });
    // An opaque pass: no content, the agent's check of its next output instead.
    const second = await passes(
      contentReceipt("cn-chain", 2, null, {
        canary_check: { surviving: [a.id, "cn-unknown"], checked_text_bytes: 40 },
      }),
    );
    expect(second.body).toMatchObject({ canaries_surviving: [a.id], canary_retention: 0.25 });
    // Neither content nor a check: nothing to say.
    const third = await passes(contentReceipt("cn-chain", 3, null));
    expect(third.body).not.toHaveProperty("canaries_surviving");
    // A restore brings them all back.
    const fourth = await passes(contentReceipt("cn-chain", 4, keeping(a, b, c, d)));
    expect(fourth.body).toMatchObject({ canaries_surviving: [a.id, b.id, c.id, d.id], canary_retention: 1 });
    // Sent again, the stored answer says the same.
    const again = await passes(contentReceipt("cn-chain", 4, keeping(a, b, c, d)));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ canaries_surviving: [a.id, b.id, c.id, d.id], canary_retention: 1 });

    const detail = await chain("cn-chain");
    expect(detail.passes.map((p: { canaries: unknown }) => p.canaries)).toEqual([canaries, null, null, null]);
    expect(detail.passes.map((p: { canary_retention: unknown }) => p.canary_retention)).toEqual([0.75, 0.25, null, 1]);
    // The chart's canary line: the passes whose survival is known.
    expect((await getCanarySeries("cn-chain")).map((p) => [p.pass_number, p.surviving, p.planted])).toEqual([
      [1, 3, 4],
      [2, 1, 4],
      [4, 4, 4],
    ]);
    const lost = detail.integrity.filter((f: { kind: string }) => f.kind === "canary_lost");
    expect(lost.map((f: { pass_number: number; detail: string }) => [f.pass_number, f.detail.split(" ")[1]])).toEqual([
      [1, d.id],
      [2, b.id],
      [2, c.id],
    ]);
  });

  it("finds a pass below the policy's min_canary_retention", async () => {
    const put = await call(
      putPolicy,
      jsonRequest("/api/v1/policies/cn-floor", {
        method: "PUT",
        body: { min_size_bytes: 1, min_semantic_density: 0.01, max_pass_number: 50, min_canary_retention: 0.5 },
      }),
      params({ content_class: "cn-floor" }),
    );
    expect(put.status, put.text).toBe(201);
    expect(put.body.min_canary_retention).toBe(0.5);
    const base = { content_class: "cn-floor" };
    await passes({
      receipts: [
        contentReceipt("cn-floor", 1, keeping(a, b, c, d), { ...base, canaries }),
        contentReceipt("cn-floor", 2, keeping(a, b), base),
        contentReceipt("cn-floor", 3, keeping(a), base),
      ],
    });
    const findings = (await chain("cn-floor")).integrity as { kind: string; pass_number: number; detail: string }[];
    const floor = findings.filter((f) => f.detail.includes("min_canary_retention"));
    expect(floor.map((f) => [f.kind, f.pass_number])).toEqual([["canary_lost", 3]]);
    expect(floor[0]?.detail).toContain("25%");
    // The chain page lists the same findings under its canary line, with the class's floor.
    const view = await getCanaryView("cn-floor", "cn-floor");
    expect(view.floor).toBe(0.5);
    expect(view.findings).toEqual(findings.filter((f) => f.kind === "canary_lost"));
    // Planted in the same batch as the passes that report on them.
    expect(findings.filter((f) => !f.detail.includes("min_canary")).map((f) => f.pass_number)).toEqual([2, 2, 3]);
  });

  it("counts chains by their latest canary retention", async () => {
    expect(await countCanaryRetention(null)).toEqual({ chains: 2, intact: 1, partial: 1, lost: 0, below_floor: 1 });
  });

  it("refuses bad canaries and checks whole, writing nothing", async () => {
    const before = await countRows();
    const many = Array.from({ length: 17 }, (_, i) => ({ id: `c${i}`, kind: "hash", text: `t${i}` }));
    for (const [extra, path] of [
      [{ canaries: many }, "canaries"],
      [{ canaries: [{ ...a, value: 1 }] }, "canaries.0"],
      [{ canaries: [a, { ...b, id: a.id }] }, "canaries"],
      [{ canaries: [{ ...a, kind: "fact" }] }, "canaries.0.kind"],
      [{ canary_check: { surviving: [a.id] } }, "canary_check.checked_text_bytes"],
      [{ canary_check: { surviving: [a.id], checked_text_bytes: -1 } }, "canary_check.checked_text_bytes"],
    ] as const) {
      const answer = await passes(contentReceipt("cn-bad", 1, "x", extra));
      expectError(answer, 422, "validation_failed");
      expect(
        issuePaths(answer).some((p) => p.startsWith(path)),
        `${JSON.stringify(extra)}: ${answer.text}`,
      ).toBe(true);
    }
    expect(await countRows()).toEqual(before);
  });
});
