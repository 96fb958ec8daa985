import { describe, expect, it } from "vitest";
import { type ChainLink, findIntegrityIssues, type IntegrityContext, integrityContext } from "@/lib/chains/integrity";

const link = (pass_number: number, input: string | null, output: string, pass_id = `p${pass_number}`): ChainLink => ({
  pass_id,
  pass_number,
  input_content_hash: input,
  current_content_hash: output,
});
const kinds = (links: ChainLink[]) => findIntegrityIssues(links).map((f) => [f.kind, f.pass_id]);

describe("findIntegrityIssues", () => {
  it("a linked chain from pass 0 or 1 has no findings", () => {
    expect(findIntegrityIssues([link(1, null, "a"), link(2, "a", "b"), link(3, "b", "c")])).toEqual([]);
    expect(findIntegrityIssues([link(0, null, "z"), link(1, "z", "a")])).toEqual([]);
    expect(findIntegrityIssues([])).toEqual([]);
  });

  it("a pass whose input differs from the previous output is a hash mismatch", () => {
    const [finding] = findIntegrityIssues([link(1, null, "a"), link(2, "x", "b")]);
    expect(finding).toMatchObject({ kind: "hash_mismatch", pass_id: "p2", pass_number: 2 });
    expect(finding?.detail).toContain('"x"');
  });

  it("an unknown input hash (null) is not compared; an empty one is", () => {
    expect(findIntegrityIssues([link(1, null, "a"), link(2, null, "b")])).toEqual([]);
    expect(kinds([link(1, null, "a"), link(2, "", "b")])).toEqual([["hash_mismatch", "p2"]]);
    expect(findIntegrityIssues([link(1, null, ""), link(2, "", "b")])).toEqual([]);
  });

  it("a gap is a missing pass, and the hash across it is not compared", () => {
    const findings = findIntegrityIssues([link(1, null, "a"), link(4, "zzz", "d")]);
    expect(findings).toEqual([
      {
        kind: "missing_pass",
        pass_id: "p4",
        pass_number: 4,
        detail: "Passes 2-3 were never received (before pass 4).",
      },
    ]);
    expect(findIntegrityIssues([link(1, null, "a"), link(3, "b", "c")])[0]?.detail).toBe(
      "Pass 2 was never received (before pass 3).",
    );
  });

  it("a chain that starts after pass 1 is missing its first passes", () => {
    expect(findIntegrityIssues([link(3, "b", "c")])).toEqual([
      {
        kind: "missing_pass",
        pass_id: "p3",
        pass_number: 3,
        detail: "Passes 1-2 were never received (before pass 3).",
      },
    ]);
    expect(kinds([link(2, "a", "b")])).toEqual([["missing_pass", "p2"]]);
  });

  it("a repeated pass number is reported once per repeat, and the next pass is compared with the last arrival", () => {
    const links = [
      link(1, null, "a"),
      link(2, "a", "b"),
      link(2, "a", "b2", "p2-again"),
      link(2, "a", "b3", "p2-third"),
      link(3, "b3", "c"),
    ];
    expect(kinds(links)).toEqual([
      ["repeated_pass", "p2-again"],
      ["repeated_pass", "p2-third"],
    ]);
    expect(kinds([link(1, null, "a"), link(2, "a", "b"), link(2, "a", "b2", "again"), link(3, "b", "c")])).toEqual([
      ["repeated_pass", "again"],
      ["hash_mismatch", "p3"],
    ]);
  });

  it("gives at most one finding per pass: repeat before gap before hash", () => {
    expect(kinds([link(1, null, "a"), link(1, "wrong", "a2", "dup")])).toEqual([["repeated_pass", "dup"]]);
    expect(kinds([link(1, null, "a"), link(5, "wrong", "e")])).toEqual([["missing_pass", "p5"]]);
  });

  it("shortens long hashes in the detail", () => {
    const long = "f".repeat(64);
    const [finding] = findIntegrityIssues([link(1, null, long), link(2, "e".repeat(64), "b")]);
    expect(finding?.detail).toContain(`${"e".repeat(12)}…`);
    expect(finding?.detail).not.toContain("e".repeat(13));
  });
});

describe("directive kinds", () => {
  const pass = (n: number, input: string | null, out: string, directive = "PROCEED") => ({
    ...link(n, input, out),
    directive,
  });

  it("continued_after_halt: the first pass numbered above an unanswered HALT directive, once", () => {
    const passes = [
      pass(1, null, "a"),
      pass(2, "a", "b"),
      pass(3, "b", "c", "HALT: Pass 3 > 2, use previous."),
      pass(4, "c", "d"),
      pass(5, "d", "e"),
    ];
    const context = integrityContext(passes, [], []);
    expect(context.halt_at).toBe(3);
    expect(kindsWith(passes, context)).toEqual([["continued_after_halt", "p4"]]);
    expect(findIntegrityIssues(passes, context)[0]?.detail).toBe(
      "Received after the chain halted at pass 3 (the HALT directive of pass 3); any later passes continued too.",
    );
  });

  it("a restore or accept_loss boundary at the HALT answers it; a halt boundary halts by itself", () => {
    const passes = [pass(1, null, "a"), pass(2, "a", "b", "HALT: Pass p2 schema invalid."), pass(3, "b", "c")];
    for (const strategy of ["restore", "accept_loss"] as const) {
      expect(integrityContext(passes, [{ pass_number: 2, strategy }], []).halt_at).toBeNull();
    }
    const halted = integrityContext(passes.slice(0, 1), [{ pass_number: 1, strategy: "halt" }], []);
    expect(halted.halt_at).toBe(1);
    expect(halted.halt_reason).toBe("a halt boundary at pass 1");
    // The lowest of the halt boundaries and unanswered HALTs wins.
    expect(integrityContext(passes, [{ pass_number: 3, strategy: "halt" }], []).halt_at).toBe(2);
  });

  it("restore_not_honoured: the pass after a restore boundary must start from the restored pass", () => {
    const passes = [pass(1, null, "a"), pass(2, "a", "b"), pass(3, "b", "c", "HALT: x"), pass(4, "c", "d")];
    const boundaries = [{ pass_number: 3, strategy: "restore" as const, restore_pass_id: "p2" }];
    const context = integrityContext(passes, boundaries, passes);
    expect(kindsWith(passes, context)).toEqual([["restore_not_honoured", "p4"]]);
    expect(findIntegrityIssues(passes, context)[0]?.detail).toContain("compressed pass 3's output (p3) instead");
    // Honoured: input is pass 2's output, which is not a hash_mismatch against pass 3 either.
    const honoured = [...passes.slice(0, 3), pass(4, "b", "d")];
    expect(kindsWith(honoured, integrityContext(honoured, boundaries, honoured))).toEqual([]);
    // A restore to a pass never received is not judged: the usual hash rule applies.
    const unknown = integrityContext(
      honoured,
      [{ pass_number: 3, strategy: "restore", restore_pass_id: "p9" }],
      honoured,
    );
    expect(kindsWith(honoured, unknown)).toEqual([["hash_mismatch", "p4"]]);
  });
});

function kindsWith(links: ChainLink[], context: IntegrityContext) {
  return findIntegrityIssues(links, context).map((f) => [f.kind, f.pass_id]);
}
