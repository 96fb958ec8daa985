import { describe, expect, it } from "vitest";
import { measureDetailed } from "@/lib/measure/index";
import { checkContent, type ContentPolicy, judgeContent, missingPaths } from "@/lib/content-checks/check-content";
import { evaluatePass } from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";

const floor = { min_size_bytes: 10, min_semantic_density: 0.3, max_pass_number: 8 };
const policy = (over: Partial<ContentPolicy> = {}): ContentPolicy => ({
  ...floor,
  format: "any",
  required_fields: [],
  ...over,
});

function claimsFor(content: string, over: Record<string, unknown> = {}) {
  return {
    pass_id: "p3",
    pass_number: 3,
    current_content_hash: sha256Hex(content),
    current_size_bytes: Buffer.byteLength(content, "utf8"),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.8,
    ...over,
  };
}

describe("size and hash", () => {
  it("measures UTF-8 bytes, not characters", () => {
    const content = "héllo wörld ✓ 𝄞";
    const { checks } = checkContent(content, claimsFor(content), policy());
    expect(checks).toEqual({
      size_matches: true,
      hash_matches: true,
      parseable: true,
      schema_valid: true,
      problems: [],
    });
    const wrong = checkContent(content, claimsFor(content, { current_size_bytes: content.length }), policy()).checks;
    expect(wrong.size_matches).toBe(false);
    expect(wrong.problems[0]).toMatch(/content is 22 bytes as UTF-8; the receipt says current_size_bytes 16/);
  });

  it("compares the SHA-256 only when the receipt's hash is 64 hex, in either case", () => {
    const content = "{}";
    expect(
      checkContent(content, claimsFor(content, { current_content_hash: "h2" }), policy()).checks.hash_matches,
    ).toBe(null);
    const upper = sha256Hex(content).toUpperCase();
    expect(
      checkContent(content, claimsFor(content, { current_content_hash: upper }), policy()).checks.hash_matches,
    ).toBe(true);
    const other = checkContent(content, claimsFor(content, { current_content_hash: sha256Hex("x") }), policy()).checks;
    expect(other.hash_matches).toBe(false);
    expect(other.problems[0]).toContain(sha256Hex(content));
  });
});

describe("parseability in the policy's format", () => {
  it("json must parse", () => {
    expect(checkContent('{"a":1}', claimsFor('{"a":1}'), policy({ format: "json" })).checks.parseable).toBe(true);
    const bad = checkContent("{a:1}", claimsFor("{a:1}"), policy({ format: "json" })).checks;
    expect(bad.parseable).toBe(false);
    expect(bad.schema_valid).toBe(false);
    expect(bad.problems[0]).toMatch(/^content is not valid JSON: .*\(policy format: json\)$/);
  });

  it("text and any accept any string", () => {
    for (const format of ["text", "any"] as const) {
      expect(checkContent("not json {", claimsFor("not json {"), policy({ format })).checks.parseable).toBe(true);
    }
  });

  it("base64 decodes strictly, then as the decoded format the policy names", () => {
    const b64 = Buffer.from('{"id":1}').toString("base64");
    expect(checkContent(b64, claimsFor(b64), policy({ format: "base64" })).checks.parseable).toBe(true);
    for (const bad of ["eyJpZCI6MX0", "eyJp ZCI6MX0=", "eyJpZCI6MX0-", "e==="]) {
      expect(checkContent(bad, claimsFor(bad), policy({ format: "base64" })).checks.parseable, bad).toBe(false);
    }
    const garbage = Buffer.from([0xff, 0xfe, 0x00]).toString("base64");
    expect(checkContent(garbage, claimsFor(garbage), policy({ format: "base64" })).checks.parseable).toBe(true);
    const asText = checkContent(
      garbage,
      claimsFor(garbage),
      policy({ format: "base64", decoded_format: "text" }),
    ).checks;
    expect(asText.parseable).toBe(false);
    expect(asText.problems[0]).toMatch(/does not decode to UTF-8/);
    const notJson = Buffer.from("plain words").toString("base64");
    expect(
      checkContent(notJson, claimsFor(notJson), policy({ format: "base64", decoded_format: "json" })).checks.parseable,
    ).toBe(false);
    expect(
      checkContent(b64, claimsFor(b64), policy({ format: "base64", decoded_format: "json" })).checks.parseable,
    ).toBe(true);
  });
});

describe("required fields as dot paths", () => {
  const doc = {
    order: { id: 7, customer: { name: "A" } },
    items: [
      { sku: "a", price: { amount: 1 } },
      { sku: "b", price: {} },
    ],
    empty: [],
    nothing: null,
  };

  it("through objects, through every item of an array, and by index", () => {
    expect(missingPaths(doc, "order.id")).toEqual([]);
    expect(missingPaths(doc, "order.customer.name")).toEqual([]);
    expect(missingPaths(doc, "order.customer.email")).toEqual(["order.customer.email"]);
    expect(missingPaths(doc, "items.sku")).toEqual([]);
    expect(missingPaths(doc, "items.price.amount")).toEqual(["items[1].price.amount"]);
    expect(missingPaths(doc, "items.0.price.amount")).toEqual([]);
    expect(missingPaths(doc, "items.5")).toEqual(["items[5]"]);
    expect(missingPaths(doc, "empty.anything")).toEqual([]);
    expect(missingPaths(doc, "nothing")).toEqual([]);
    expect(missingPaths(doc, "nothing.below")).toEqual(["nothing.below"]);
    expect(missingPaths([{ a: 1 }, { b: 1 }], "a")).toEqual(["[1].a"]);
  });

  it("decide schema_valid and name each missing field", () => {
    const content = JSON.stringify(doc);
    const ok = checkContent(
      content,
      claimsFor(content),
      policy({ format: "json", required_fields: ["order.id", "items.sku"] }),
    );
    expect(ok.checks.schema_valid).toBe(true);
    const bad = checkContent(
      content,
      claimsFor(content),
      policy({ format: "json", required_fields: ["order.id", "items.price.amount", "total"] }),
    ).checks;
    expect(bad.schema_valid).toBe(false);
    expect(bad.problems).toEqual([
      "required field 'items.price.amount' is missing (at items[1].price.amount)",
      "required field 'total' is missing",
    ]);
  });

  it("need JSON content even when the format is any or text", () => {
    const checks = checkContent("plain", claimsFor("plain"), policy({ format: "text", required_fields: ["a"] })).checks;
    expect(checks).toMatchObject({ parseable: true, schema_valid: false });
    expect(checks.problems[0]).toMatch(/requires fields \(a\) but the content is not JSON/);
  });

  it("bound the problems listed for a document missing a field everywhere", () => {
    const content = JSON.stringify({ rows: Array.from({ length: 5000 }, () => ({})) });
    const checks = checkContent(
      content,
      claimsFor(content),
      policy({ format: "json", required_fields: ["rows.id"] }),
    ).checks;
    expect(checks.problems).toEqual([
      "required field 'rows.id' is missing (at rows[0].id, rows[1].id, rows[2].id, ...)",
    ]);
  });
});

describe("judgeContent", () => {
  it("runs the one guard on the server's findings and flags claims the content contradicts", () => {
    const content = JSON.stringify({ order: { id: 1 }, padding: "x".repeat(40) });
    const strict = policy({ format: "json", required_fields: ["order.id", "order.total"] });
    const claims = claimsFor(content);
    const findings = judgeContent(content, claims, strict);
    expect(findings.server_checks.schema_valid).toBe(false);
    expect(findings.checked_verdict).not.toBe(
      evaluatePass(claimsFor(content, { semantic_density_score: 0.9 }), policy()).verdict,
    );
    expect(findings.checked_verdict).toBe(evaluatePass({ ...claims, schema_valid: false }, strict).verdict);
    expect(evaluatePass(claims, strict).verdict).toBe("SAFE_TO_COMPRESS");
    expect(findings.checked_mismatch).toBe(true);
  });

  it("judges the measured size against the floor, not the claimed one", () => {
    const content = "tiny";
    const findings = judgeContent(content, claimsFor(content, { current_size_bytes: 5000 }), policy());
    expect(findings.checked_verdict).toBe("COLLAPSE_IMMINENT");
    expect(findings.checked_mismatch).toBe(true);
  });

  it("does not flag a client stricter than the policy", () => {
    const content = "x".repeat(100);
    const findings = judgeContent(content, claimsFor(content, { schema_valid: false }), policy());
    expect(findings.server_checks.schema_valid).toBe(true);
    expect(findings.checked_mismatch).toBe(false);
    expect(findings.checked_verdict).toBe("SAFE_TO_COMPRESS");
  });
});

describe("measured density", () => {
  const source =
    "Release 3.9.0 (2026-05-02) adds Postgres 17 support and removes /v1/export; Node.js 20.9 is required.";
  it("judges the measured density in place of the claimed one, and flags the disagreement", () => {
    const content = "Various improvements and changes to the product were made during this release cycle.";
    const findings = judgeContent(
      content,
      claimsFor(content, { semantic_density_score: 0.9 }),
      policy(),
      measureDetailed(content, { source }),
    );
    expect(findings.server_checks.semantic_density_score).toBeLessThan(0.1);
    expect(findings.server_checks.facts).toMatchObject({ retained: 0 });
    expect(findings.checked_verdict).not.toBe(
      evaluatePass(claimsFor(content, { semantic_density_score: 0.9 }), policy()).verdict,
    );
    expect(findings.server_checks.measurement_mismatch).toBe(true);
    const faithful = judgeContent(source, claimsFor(source), policy(), measureDetailed(source, { source }));
    expect(faithful.server_checks.measurement_mismatch).toBe(false);
    expect(judgeContent(content, claimsFor(content), policy()).server_checks.semantic_density_score).toBeUndefined();
  });

  it("keeps the client's density when the measurement failed, and says why", () => {
    const content = "Various improvements and changes to the product were made during this release cycle.";
    const findings = judgeContent(content, claimsFor(content, { semantic_density_score: 0.9 }), policy(), "failed");
    expect(findings.server_checks.semantic_density_score).toBeUndefined();
    expect(findings.server_checks.measurement_mismatch).toBeUndefined();
    expect(findings.server_checks.problems.join(" ")).toContain("could not be measured");
  });
});
