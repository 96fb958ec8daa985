import { describe, expect, it } from "vitest";
import { provenanceOf } from "@/lib/originals/provenance";

const pass = (pass_id: string, input: string | null, output: string) => ({
  chain_id: "c",
  pass_id,
  pass_number: Number(pass_id.slice(1)),
  verdict: "SAFE_TO_COMPRESS",
  input_content_hash: input,
  current_content_hash: output,
});
const match = (pass_id: string, relation: "input" | "output") => ({
  chain_id: "c",
  pass_id,
  pass_number: Number(pass_id.slice(1)),
  relation,
  verdict: "SAFE_TO_COMPRESS",
});

describe("provenanceOf", () => {
  it("confirms a recorded pass whose receipt names the hash, and lists it only once", () => {
    const p = provenanceOf("H", "c", "p2", pass("p2", "H", "x"), [match("p1", "output"), match("p2", "input")]);
    expect(p.source).toMatchObject({ kind: "confirmed", relation: "input" });
    expect(p.others.map((o) => o.pass_id)).toEqual(["p1"]);
  });

  it("says why no receipt names the hash when the recorded pass hashes differently", () => {
    const p = provenanceOf("H", "c", "p4", pass("p4", "a", "b"), []);
    expect(p.source.kind).toBe("hashes_differ");
    expect(p.others).toEqual([]);
  });

  it("tells a pass not yet received from no source at all", () => {
    expect(provenanceOf("H", "c", "p9", null, []).source.kind).toBe("pass_not_received");
    expect(provenanceOf("H", "c", null, null, []).source.kind).toBe("chain_only");
    expect(provenanceOf("H", null, null, null, [match("p1", "output")])).toMatchObject({
      source: { kind: "none" },
      others: [{ pass_id: "p1" }],
    });
  });
});
