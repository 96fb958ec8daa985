import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluatePass, type CompressionPass, type CompressionPolicy } from "@/lib/guard/guard";
import { explainPass, type GateKey, verdictOfChecks } from "@/lib/guard/explain";
import { sha256Hex } from "@/lib/guard/hash";

/** Which gate the guard itself stopped at, read from its digest (each gate signs with its own payload). */
function guardGate(pass: CompressionPass, policy: CompressionPolicy): GateKey | null {
  const { verdict, manifest_digest: digest } = evaluatePass(pass, policy);
  if (verdict === "NO_RECURSIVE_COMPRESSION") return "first_pass";
  if (verdict === "SAFE_TO_COMPRESS") return null;
  const byPayload: Array<[string, GateKey]> = [
    ["MAX_PASS", "max_pass_number"],
    ["UNPARSEABLE", "parseable"],
    ["SCHEMA", "schema_valid"],
    ["SMALL", "min_size_bytes"],
    ["LOW_DENSITY", "min_semantic_density"],
  ];
  return (
    byPayload.find(([payload]) => sha256Hex(`${payload}:${pass.pass_id}`) === digest)?.[1] ?? ("unknown" as GateKey)
  );
}

// Values cluster around the limits, where an off-by-one would show.
const passArb = fc.record({
  pass_id: fc.string({ maxLength: 8 }),
  pass_number: fc.integer({ min: -2, max: 12 }),
  current_content_hash: fc.constant("h"),
  current_size_bytes: fc.integer({ min: 0, max: 3000 }),
  is_parseable: fc.boolean(),
  schema_valid: fc.boolean(),
  semantic_density_score: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0.45, 0.5, 0.55)),
});
const policyArb = fc.record({
  min_size_bytes: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.constantFrom(256, 1024)),
  min_semantic_density: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0.45, 0.5, 0.55)),
  max_pass_number: fc.integer({ min: 0, max: 10 }),
});

describe("explainPass", () => {
  it("decides at exactly the gate the guard stops at, with the guard's verdict and directive", () => {
    fc.assert(
      fc.property(passArb, policyArb, (pass, policy) => {
        const explanation = explainPass(pass, policy);
        const manifest = evaluatePass(pass, policy);
        expect(explanation.verdict).toBe(manifest.verdict);
        expect(explanation.directive).toBe(manifest.directive);
        expect(verdictOfChecks(explanation.checks)).toBe(manifest.verdict);
        expect(explanation.checks.find((c) => c.decided)?.key ?? null).toBe(guardGate(pass, policy));
        expect(explanation.checks.filter((c) => c.decided).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 5000 },
    );
  });

  it("shows every check with value and limit, and the failures the guard never reached", () => {
    // Pass 10 of a chain allowed 8, with density 0.418 under 0.45: the guard only says "Pass 10 > 8".
    const pass = {
      pass_id: "p10",
      pass_number: 10,
      current_content_hash: "h",
      current_size_bytes: 900,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.418,
    };
    const policy = { min_size_bytes: 400, min_semantic_density: 0.45, max_pass_number: 8 };
    const { checks, directive } = explainPass(pass, policy);
    expect(directive).toBe("HALT: Pass 10 > 8, use previous.");
    expect(checks.map((c) => [c.key, c.value, c.limit, c.ok, c.decided, c.unreached_failure])).toEqual([
      ["first_pass", "10", "≤ 1", false, false, false],
      ["max_pass_number", "10", "≤ 8", false, true, false],
      ["parseable", "yes", "yes", true, false, false],
      ["schema_valid", "yes", "yes", true, false, false],
      ["min_size_bytes", "900 bytes", "≥ 400 bytes", true, false, false],
      ["min_semantic_density", "0.418", "≥ 0.45", false, false, true],
    ]);
  });

  it("names what the server found missing under the schema check", () => {
    const pass = {
      pass_id: "p5",
      pass_number: 5,
      current_content_hash: "h",
      current_size_bytes: 3900,
      is_parseable: true,
      schema_valid: false,
      semantic_density_score: 0.63,
    };
    const policy = { min_size_bytes: 2048, min_semantic_density: 0.55, max_pass_number: 6 };
    const problems = ["items[0].sku is missing", "items[1].sku is missing"];
    const schema = explainPass(pass, policy, { parseable: true, schema_valid: false, problems }).checks.find(
      (c) => c.key === "schema_valid",
    );
    expect(schema).toMatchObject({ decided: true, problems });
    expect(explainPass(pass, policy).checks.every((c) => c.problems.length === 0)).toBe(true);
  });

  it("keeps the server's check beside a claim it contradicts (the gate still judges the claim)", () => {
    const pass = {
      pass_id: "c.p3",
      current_content_hash: "h3",
      pass_number: 3,
      current_size_bytes: 3525,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.67,
    };
    const policy = { min_size_bytes: 2048, min_semantic_density: 0.5, max_pass_number: 6 };
    const problems = ["required field 'items.quantity' is missing"];
    const checks = explainPass(pass, policy, { parseable: true, schema_valid: false, problems }).checks;
    expect(checks.find((c) => c.key === "schema_valid")).toMatchObject({ ok: true, checked: false, problems });
    expect(checks.find((c) => c.key === "parseable")).toMatchObject({ ok: true, checked: true });
    expect(checks.find((c) => c.key === "min_size_bytes")?.checked).toBeNull();
    // Content that does not parse fails its schema too, as checked.
    const unparsed = explainPass(pass, policy, {
      parseable: false,
      schema_valid: false,
      problems: ["bad JSON"],
    }).checks;
    expect(unparsed.find((c) => c.key === "schema_valid")?.checked).toBe(false);
    expect(explainPass(pass, policy).checks.every((c) => c.checked === null)).toBe(true);
  });
});
