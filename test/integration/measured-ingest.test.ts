// Measured on ingest: a receipt with content whose chain's source is in the batch (pass 1's
// input_content) is measured; the answer and the stored row carry the measurement, the
// checked verdict uses it, and a void pass that claims a high density is a measurement mismatch.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT } from "@/app/api/v1/policies/[content_class]/route";
import { evaluatePass } from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";
import { measure } from "@/lib/measure/index";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, post } from "./api-helpers";

setUpTestDatabase();

const { chains } = JSON.parse(readFileSync("test/fixtures/measurement/chains.json", "utf8"));
const notes = chains[0];
const FLOOR = { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10 };

function receipt(chainId: string, passNumber: number, content: string, extra: Record<string, unknown> = {}) {
  return {
    chain_id: chainId,
    pass_id: `${chainId}.p${passNumber}`,
    pass_number: passNumber,
    current_content_hash: sha256Hex(content),
    current_size_bytes: Buffer.byteLength(content),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    content_class: "measured-cc",
    content,
    ...extra,
  };
}

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
  });

  it("leaves a pass unmeasured without the chain's source", async () => {
    const answer = await post(postPasses, "/api/v1/passes", receipt("m-2", 2, voided));
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.server_checks.semantic_density_score).toBeUndefined();
    expect(answer.body.measurement_mismatch).toBeUndefined();
  });
});
