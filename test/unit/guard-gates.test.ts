import { describe, expect, it } from "vitest";
import {
  COLLAPSE_VERDICTS,
  evaluatePass,
  VERDICTS,
  type CompressionPass,
  type CompressionPolicy,
} from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";

// A pass that trips every gate at once: the order of the gates decides the verdict.
const broken: CompressionPass = {
  pass_id: "p",
  pass_number: 9,
  current_content_hash: "h",
  current_size_bytes: 1,
  is_parseable: false,
  schema_valid: false,
  semantic_density_score: 0.1,
};
const policy: CompressionPolicy = { min_size_bytes: 100, min_semantic_density: 0.5, max_pass_number: 5 };

describe("collapse guard gate order", () => {
  it("gate 1: pass_number <= 1 wins over every other gate", () => {
    for (const n of [0, 1]) {
      const m = evaluatePass({ ...broken, pass_number: n }, { ...policy, max_pass_number: 0 });
      expect(m.verdict).toBe("NO_RECURSIVE_COMPRESSION");
      expect(m.directive).toBe("PROCEED: Pass p is first pass.");
      expect(m.manifest_digest).toBe(sha256Hex(`{"number": "${n}", "pass": "p"}`));
    }
  });

  it("gate 2: max_pass_number comes before parseability", () => {
    const m = evaluatePass(broken, policy);
    expect(m).toEqual({
      verdict: "COLLAPSE_IMMINENT",
      directive: "HALT: Pass 9 > 5, use previous.",
      manifest_digest: sha256Hex("MAX_PASS:p"),
    });
  });

  it("gate 2 is strict: pass_number equal to the maximum goes on", () => {
    expect(evaluatePass({ ...broken, pass_number: 5 }, policy).verdict).toBe("FLOOR_BREACH_DETECTED");
  });

  it("gate 3: parseability before schema validity", () => {
    const m = evaluatePass({ ...broken, pass_number: 2 }, policy);
    expect(m).toEqual({
      verdict: "FLOOR_BREACH_DETECTED",
      directive: "HALT: Pass p unparseable, restore previous.",
      manifest_digest: sha256Hex("UNPARSEABLE:p"),
    });
  });

  it("gate 4: schema validity before size", () => {
    const m = evaluatePass({ ...broken, pass_number: 2, is_parseable: true }, policy);
    expect(m).toEqual({
      verdict: "FLOOR_BREACH_DETECTED",
      directive: "HALT: Pass p schema invalid.",
      manifest_digest: sha256Hex("SCHEMA:p"),
    });
  });

  it("gate 5a: size before density, strictly below the floor", () => {
    const cp = { ...broken, pass_number: 2, is_parseable: true, schema_valid: true };
    expect(evaluatePass(cp, policy)).toEqual({
      verdict: "COLLAPSE_IMMINENT",
      directive: "HALT: Size 1 < 100, next pass will collapse.",
      manifest_digest: sha256Hex("SMALL:p"),
    });
    expect(evaluatePass({ ...cp, current_size_bytes: 100 }, policy).directive).toBe("HALT: Density 0.10 < 0.50.");
  });

  it("gate 5b: density strictly below the floor, both printed with .2f half-even", () => {
    const cp = { ...broken, pass_number: 2, is_parseable: true, schema_valid: true, current_size_bytes: 100 };
    expect(evaluatePass({ ...cp, semantic_density_score: 0.125 }, { ...policy, min_semantic_density: 0.375 })).toEqual({
      verdict: "COLLAPSE_IMMINENT",
      directive: "HALT: Density 0.12 < 0.38.",
      manifest_digest: sha256Hex("LOW_DENSITY:p"),
    });
    // Both print as 0.50, yet the comparison is on the exact values.
    expect(evaluatePass({ ...cp, semantic_density_score: 0.499 }, policy).directive).toBe("HALT: Density 0.50 < 0.50.");
    expect(evaluatePass({ ...cp, semantic_density_score: 0.5 }, policy).verdict).toBe("SAFE_TO_COMPRESS");
  });

  it("gate 6: the safe digest covers id, number, size, .3f density and hash", () => {
    const cp: CompressionPass = {
      pass_id: "caf\u00e9",
      pass_number: 3,
      current_content_hash: "\u{1F600}",
      current_size_bytes: 100,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.0625,
    };
    const m = evaluatePass(cp, { ...policy, min_semantic_density: 0 });
    expect(m.verdict).toBe("SAFE_TO_COMPRESS");
    expect(m.directive).toBe("PROCEED: Pass 3 safe for further compression.");
    expect(m.manifest_digest).toBe(
      sha256Hex('{"density": "0.062", "hash": "\\ud83d\\ude00", "number": "3", "pass": "caf\\u00e9", "size": "100"}'),
    );
  });

  it("prints large integers as Python does, with no exponent", () => {
    const cp = { ...broken, pass_number: 2 ** 53 - 1 };
    expect(evaluatePass(cp, { ...policy, max_pass_number: 2 ** 53 - 2 }).directive).toBe(
      "HALT: Pass 9007199254740991 > 9007199254740990, use previous.",
    );
  });

  it("hashes the UTF-8 bytes of non-ASCII ids in the plain-text digests", () => {
    // Digests computed by hashlib.sha256("MAX_PASS:...".encode("utf-8")).
    expect(evaluatePass({ ...broken, pass_id: "\u00e9" }, policy).manifest_digest).toBe(
      "fc6d1342dd8dc25c0f11e5e42091ec0aa8923ad3d80dd2dbaf82e3cafd50b944",
    );
    expect(evaluatePass({ ...broken, pass_id: "\u{1F600}" }, policy).manifest_digest).toBe(
      "54e187d6f040996b2a5d82ff2b2213179d4d1e008b5ab12f228cba81972d7748",
    );
  });

  it("names the collapse verdicts", () => {
    expect(VERDICTS).toHaveLength(4);
    expect([...COLLAPSE_VERDICTS].sort()).toEqual(["COLLAPSE_IMMINENT", "FLOOR_BREACH_DETECTED"]);
  });
});
