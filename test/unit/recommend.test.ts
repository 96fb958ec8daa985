// Hand-worked recommendations. Every chain here has sizes 1000, 800, 600 (so each healthy
// chain saved 400 bytes, and 200 of them if halted at pass 2) and its only pass the guard
// can stop at early is pass 2, whose density is the number given: the answers below follow
// from those densities alone, and the comments show the working.
import { describe, expect, it } from "vitest";
import type { CompressionPolicy } from "@/lib/guard/guard";
import {
  failureOf,
  type RecordedChain,
  type RecordedPass,
  recommendFloors,
  type Recommendation,
  toColumns,
  unpackChains,
} from "@/lib/recommend";
import { catchesOf } from "../support/recommend-replay";

const SIZES = [1000, 800, 600];

function pass(n: number, density: number, extra: Partial<RecordedPass> = {}): RecordedPass {
  return {
    pass_number: n,
    current_size_bytes: SIZES[n - 1] ?? 500,
    semantic_density_score: density,
    is_parseable: true,
    schema_valid: true,
    ...extra,
  };
}

let seq = 0;
/** Healthy: passes 1..3, pass 2 at `density`. */
const healthy = (density: number): RecordedChain => ({
  chain_id: `h${seq++}`,
  passes: [pass(1, 0.95), pass(2, density), pass(3, 0.95)],
});
/** Fails at pass 3 (unparseable) after pass 2 at `density`. */
const failing = (density: number): RecordedChain => ({
  chain_id: `f${seq++}`,
  passes: [pass(1, 0.95), pass(2, density), pass(3, 0.95, { is_parseable: false })],
});
/** Fails at pass 2: nothing before it the guard could stop at. */
const uncatchable = (): RecordedChain => ({
  chain_id: `u${seq++}`,
  passes: [pass(1, 0.95), pass(2, 0.95, { schema_valid: false }), pass(3, 0.95)],
});

const CURRENT: CompressionPolicy = { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 };

function recommend(chains: RecordedChain[], current = CURRENT): Recommendation {
  const result = recommendFloors(toColumns(chains), current);
  if (!result.ok) throw new Error("expected a recommendation");
  return result.recommendation;
}

const option = (r: Recommendation, name: string) => {
  const found = r.options.find((o) => o.name === name);
  if (!found) throw new Error(name);
  const { name: _, ...rest } = found;
  return rest;
};

describe("recommendFloors on hand-worked classes", () => {
  it("three different floors when a missed failure and a halted chain trade off", () => {
    // Failing at pass 2 densities 0.35, 0.55, 0.55, 0.75, and one at pass 2 (uncatchable);
    // healthy at 0.5, 0.7, 0.7 and seven at 0.9. A density floor D stops pass 2 when d < D:
    //   D in (0.35, 0.5]:  catches 1, halts 0   (score 1)  <- lenient: most caught, none halted
    //   D in (0.5, 0.55]:  catches 1, halts 1   (score 0)
    //   D in (0.55, 0.7]:  catches 3, halts 1   (score 2)  <- balanced
    //   D in (0.7, 0.75]:  catches 3, halts 3   (score 0)
    //   D in (0.75, 0.9]:  catches 4, halts 3   (score 1)  <- strict: all 4 catchable, fewest halted
    // Size and pass-number floors stop pass 2 of every chain at once, so they never help.
    // Values: the roundest number in each range, nearest its middle: 0.4, 0.6, 0.8; the size
    // and pass limits in force already stop nothing, so they stay.
    const r = recommend([
      failing(0.35),
      failing(0.55),
      failing(0.55),
      failing(0.75),
      uncatchable(),
      healthy(0.5),
      healthy(0.7),
      healthy(0.7),
      ...Array.from({ length: 7 }, () => healthy(0.9)),
    ]);
    expect(r.based_on).toEqual({ chains: 15, healthy: 10, guarded: 0, failures: 5, passes: 45 });
    expect(r.current).toEqual({
      failures_caught: 0,
      failures_missed: 5,
      healthy_halted_early: 0,
      compression_kept: 1,
    });
    // Each halted chain keeps 200 of its 400 bytes; 10 healthy chains saved 4000.
    expect(option(r, "strict")).toEqual({
      policy: { min_size_bytes: 100, min_semantic_density: 0.8, max_pass_number: 10 },
      failures_caught: 4,
      failures_missed: 1,
      healthy_halted_early: 3,
      compression_kept: 3400 / 4000,
    });
    expect(option(r, "balanced")).toEqual({
      policy: { min_size_bytes: 100, min_semantic_density: 0.6, max_pass_number: 10 },
      failures_caught: 3,
      failures_missed: 2,
      healthy_halted_early: 1,
      compression_kept: 3800 / 4000,
    });
    expect(option(r, "lenient")).toEqual({
      policy: { min_size_bytes: 100, min_semantic_density: 0.4, max_pass_number: 10 },
      failures_caught: 1,
      failures_missed: 4,
      healthy_halted_early: 0,
      compression_kept: 1,
    });
  });

  it("a tie in caught minus halted goes to the floor that keeps more compression", () => {
    // D in (0.35, 0.5]: catches 1, halts 0 (score 1); D in (0.6, 0.9]: catches 2, halts 1
    // (score 1). Balanced takes the first: same score, nothing lost. Strict shows 0.8, the
    // tenth nearest the middle of (0.6, 0.9].
    const r = recommend([failing(0.35), failing(0.6), healthy(0.5), ...Array.from({ length: 9 }, () => healthy(0.9))]);
    expect(option(r, "lenient").policy.min_semantic_density).toBe(0.4);
    expect(option(r, "balanced")).toEqual(option(r, "lenient"));
    expect(option(r, "strict")).toMatchObject({
      policy: { min_semantic_density: 0.8 },
      failures_caught: 2,
      healthy_halted_early: 1,
      compression_kept: 3800 / 4000,
    });
  });

  it("a floor already best is recommended unchanged", () => {
    const current = { min_size_bytes: 100, min_semantic_density: 0.45, max_pass_number: 10 };
    const r = recommend([failing(0.35), failing(0.4), ...Array.from({ length: 10 }, () => healthy(0.9))], current);
    // Anything in (0.4, 0.9] catches both and halts nothing: the floor in force is in there.
    for (const o of r.options) expect(o.policy).toEqual(current);
    expect(r.current).toEqual({ failures_caught: 2, failures_missed: 0, healthy_halted_early: 0, compression_kept: 1 });
  });

  it("failures at pass 1 or 2 cannot be caught by any floor", () => {
    const atOne: RecordedChain = { chain_id: "one", passes: [pass(1, 0.9, { is_parseable: false }), pass(2, 0.1)] };
    const atTwoByBoundary: RecordedChain = {
      chain_id: "two",
      passes: [pass(1, 0.9), pass(2, 0.1), pass(3, 0.1)],
      boundaries: [{ pass_number: 2, strategy: "accept_loss" }],
    };
    const r = recommend([atOne, atTwoByBoundary, uncatchable(), ...Array.from({ length: 8 }, () => healthy(0.9))]);
    expect(r.based_on.failures).toBe(3);
    for (const o of r.options) {
      expect(o.failures_caught).toBe(0);
      expect(o.failures_missed).toBe(3);
      expect(o.healthy_halted_early).toBe(0);
    }
  });

  it("a class where every chain fails: all three catch every catchable failure, loosely", () => {
    // Catchable at 0.3 (x5) and 0.5 (x3), two uncatchable. Nothing healthy to halt, so
    // every option catches all 8; the loosest such floor is just above 0.5, shown as the
    // next tenth, 0.6.
    const chains = [
      ...Array.from({ length: 5 }, () => failing(0.3)),
      ...Array.from({ length: 3 }, () => failing(0.5)),
      uncatchable(),
      uncatchable(),
    ];
    const r = recommend(chains);
    expect(r.based_on).toMatchObject({ chains: 10, healthy: 0, failures: 10 });
    for (const o of r.options) {
      expect(o).toMatchObject({
        policy: { min_size_bytes: 100, min_semantic_density: 0.6, max_pass_number: 10 },
        failures_caught: 8,
        failures_missed: 2,
        healthy_halted_early: 0,
        compression_kept: 1,
      });
    }
  });

  it("a class with no failure: nothing to catch, so nothing is halted", () => {
    // The floor in force halts the chains at 0.2 (density 0.3 > 0.2): every option lowers
    // density to the roundest value that halts none, in [0, 0.2].
    const chains = [healthy(0.2), healthy(0.2), ...Array.from({ length: 10 }, () => healthy(0.8))];
    const r = recommend(chains);
    expect(r.current).toMatchObject({ failures_caught: 0, healthy_halted_early: 2, compression_kept: 4400 / 4800 });
    for (const o of r.options) {
      expect(o).toEqual({
        name: o.name,
        policy: { min_size_bytes: 100, min_semantic_density: 0.1, max_pass_number: 10 },
        failures_caught: 0,
        failures_missed: 0,
        healthy_halted_early: 0,
        compression_kept: 1,
      });
    }
  });

  it("answers not_enough_data below the minimum of recorded chains", () => {
    const result = recommendFloors(toColumns([failing(0.3), healthy(0.9)]), CURRENT);
    expect(result).toEqual({ ok: false, reason: "not_enough_data", chains: 2, minimum: 10 });
  });

  it("pass-number and size floors are found when they are what separates failures", () => {
    // Three chains fail at pass 7, one healthy chain (d) runs to pass 7 too, six healthy
    // chains end at pass 4 with smaller sizes. Density never differs, and a size floor that
    // stops the long chains stops the short ones too, so only max_pass_number = 5 (stop pass
    // 6) catches the three: it halts d at pass 6, before its last (7).
    const long = (id: string, broken: boolean): RecordedChain => ({
      chain_id: id,
      passes: Array.from({ length: 7 }, (_, i) =>
        pass(i + 1, 0.8, { current_size_bytes: 1000 - i * 10, is_parseable: !(broken && i === 6) }),
      ),
    });
    const short = (id: string): RecordedChain => ({
      chain_id: id,
      passes: Array.from({ length: 4 }, (_, i) => pass(i + 1, 0.8, { current_size_bytes: 1000 - i * 100 })),
    });
    const chains = [
      long("a", true),
      long("b", true),
      long("c", true),
      long("d", false),
      ...["e", "f", "g", "h", "i", "j"].map(short),
    ];
    const r = recommend(chains);
    // Lenient halts nothing, and anything that stops a, b or c stops d: it catches none.
    expect(option(r, "lenient")).toMatchObject({ failures_caught: 0, healthy_halted_early: 0 });
    expect(option(r, "strict")).toMatchObject({
      policy: { max_pass_number: 5 },
      failures_caught: 3,
      healthy_halted_early: 1,
    });
    expect(option(r, "balanced")).toMatchObject({ policy: { max_pass_number: 5 }, failures_caught: 3 });
  });
});

describe("guarded chains", () => {
  /** Broken at pass 3 like `failing`, but the guard stopped it there and the agent obeyed. */
  const saved = (density: number): RecordedChain => ({ ...failing(density), guarded_at: 3 });

  it("are saves, not failures: counted apart, and never caught or missed", () => {
    const r = recommend([
      ...Array.from({ length: 4 }, () => failing(0.35)),
      ...Array.from({ length: 3 }, () => saved(0.9)),
      ...Array.from({ length: 5 }, () => healthy(0.9)),
    ]);
    expect(r.based_on).toEqual({ chains: 12, healthy: 5, guarded: 3, failures: 4, passes: 36 });
    // A density floor over 0.35 catches the four failures at pass 2 and stops no other chain.
    expect(option(r, "strict")).toMatchObject({ failures_caught: 4, failures_missed: 0, healthy_halted_early: 0 });
    expect(r.current).toMatchObject({ failures_caught: 0, failures_missed: 4 });
  });

  it("are halted early by a floor that stops them before the pass the guard stopped them at", () => {
    // Saved at pass 4 (500 bytes, broken), so the recording kept pass 3: 400 bytes saved, as
    // much as a healthy chain. The failures sit at 0.5 at pass 2, the saves at 0.4: a floor
    // that catches the failures stops the saves at pass 2, keeping 200 of their 400 bytes.
    const savedAt4 = (): RecordedChain => ({
      chain_id: `g${seq++}`,
      passes: [pass(1, 0.95), pass(2, 0.4), pass(3, 0.95), pass(4, 0.95, { schema_valid: false })],
      guarded_at: 4,
    });
    const r = recommend([
      ...Array.from({ length: 3 }, () => failing(0.5)),
      ...Array.from({ length: 3 }, savedAt4),
      ...Array.from({ length: 4 }, () => healthy(0.9)),
    ]);
    expect(r.based_on).toMatchObject({ healthy: 4, guarded: 3, failures: 3 });
    const strict = option(r, "strict");
    expect(strict).toMatchObject({ failures_caught: 3, healthy_halted_early: 3 });
    expect(strict.compression_kept).toBeCloseTo((7 * 400 - 3 * 200) / (7 * 400), 12);
    expect(option(r, "lenient")).toMatchObject({ failures_caught: 0, healthy_halted_early: 0 });
  });

  it("have no failure for the chain page to show", () => {
    expect(failureOf(toColumns([saved(0.9)]), 0)).toBeNull();
    expect(catchesOf(saved(0.9), [{ name: "strict", policy: CURRENT }])).toBeNull();
    expect(failureOf(toColumns([failing(0.9)]), 0)).toBe(3);
  });
});

describe("failureOf", () => {
  it("is the first broken pass or restore/accept_loss boundary, whichever comes first; halt boundaries are not failures", () => {
    const chain = (passes: RecordedPass[], boundaries: RecordedChain["boundaries"] = []) =>
      failureOf(toColumns([{ chain_id: "x", passes, boundaries }]), 0);
    const ok = [pass(1, 0.9), pass(2, 0.9), pass(3, 0.9), pass(4, 0.9)];
    expect(chain(ok)).toBeNull();
    expect(chain(ok, [{ pass_number: 3, strategy: "halt" }])).toBeNull();
    expect(chain(ok, [{ pass_number: 3, strategy: "restore" }])).toBe(3);
    const broken = [pass(1, 0.9), pass(2, 0.9), pass(3, 0.9, { schema_valid: false }), pass(4, 0.9)];
    expect(chain(broken)).toBe(3);
    expect(chain(broken, [{ pass_number: 2, strategy: "accept_loss" }])).toBe(2);
    expect(chain(broken, [{ pass_number: 4, strategy: "restore" }])).toBe(3);
    // The server's own finding counts as much as the claim.
    const checked = [pass(1, 0.9), pass(2, 0.9, { checked: { parseable: true, schema_valid: false } }), pass(3, 0.9)];
    expect(chain(checked)).toBe(2);
    // Replay order is by pass number, whatever order the passes were recorded in.
    expect(chain([pass(3, 0.9, { is_parseable: false }), pass(1, 0.9), pass(2, 0.9)])).toBe(3);
  });
});

describe("unpackChains", () => {
  const pack = (values: number[], kind: "int" | "float") => {
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    values.forEach((v, i) => {
      if (kind === "int") view.setBigInt64(i * 8, BigInt(v));
      else view.setFloat64(i * 8, v);
    });
    return bytes;
  };

  it("reads the database's columns into the same columns as the recorded chains, in replay order", () => {
    const chains: RecordedChain[] = [
      { chain_id: "a", passes: [pass(1, 0.9), pass(2, 0.4183749), pass(3, 0.2, { is_parseable: false })] },
      {
        chain_id: "b",
        // Handed over out of order: put back in pass order, ties kept.
        passes: [pass(2, 0.5), pass(1, 0.7), pass(2, 0.6, { schema_valid: false })],
        boundaries: [{ pass_number: 2, strategy: "restore" }],
      },
    ];
    const flat = chains.flatMap((c) => c.passes);
    const cols = unpackChains({
      chainIds: ["a", "b"],
      passCounts: [3, 3],
      passNumbers: pack(
        flat.map((p) => p.pass_number),
        "int",
      ),
      sizes: pack(
        flat.map((p) => p.current_size_bytes),
        "int",
      ),
      densities: pack(
        flat.map((p) => p.semantic_density_score),
        "float",
      ),
      broken: flat.map((p) => (!p.is_parseable || !p.schema_valid ? "1" : "0")).join(""),
      failureBoundaries: new Map([["b", 2]]),
    });
    expect(cols).toEqual(toColumns(chains));
  });
});

describe("catchesOf", () => {
  it("says which floors stop a failing chain before its failure, where, and with the guard's directive", () => {
    const chain = failing(0.45);
    const result = catchesOf(chain, [
      { name: "strict", policy: { min_size_bytes: 0, min_semantic_density: 0.5, max_pass_number: 10 } },
      { name: "lenient", policy: { min_size_bytes: 0, min_semantic_density: 0.4, max_pass_number: 10 } },
    ]);
    expect(result).toEqual({
      failure: 3,
      options: [
        {
          name: "strict",
          policy: { min_size_bytes: 0, min_semantic_density: 0.5, max_pass_number: 10 },
          caught: true,
          halt: {
            pass_id: "p1",
            pass_number: 2,
            verdict: "COLLAPSE_IMMINENT",
            directive: "HALT: Density 0.45 < 0.50.",
          },
        },
        {
          name: "lenient",
          policy: { min_size_bytes: 0, min_semantic_density: 0.4, max_pass_number: 10 },
          caught: false,
          halt: expect.objectContaining({ pass_number: 3, verdict: "FLOOR_BREACH_DETECTED" }),
        },
      ],
    });
    expect(catchesOf(healthy(0.9), [{ name: "strict", policy: CURRENT }])).toBeNull();
  });
});
