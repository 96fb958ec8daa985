// The recommendation decides from per-chain aggregates (lib/recommend/profile.ts) instead of
// replaying every pass; these tests replay random chains through the guard itself
// (lib/guard/guard.ts, via replayChain in test/support) and require the same answers, and check the search
// against an exhaustive one on classes small enough to enumerate.
import { describe, expect, it } from "vitest";
import type { CompressionPolicy } from "@/lib/guard/guard";
import {
  type ClassProfile,
  type Outcome,
  outcomeOf,
  profileChains,
  type RecordedChain,
  type RecordedPass,
  recommendFloors,
  toColumns,
} from "@/lib/recommend";
import { replayChain } from "../support/recommend-replay";
import { at } from "../support/at";
import { seededRandom } from "../support/random";

const DENSITIES = [0, 0.1, 0.25, 0.3, 0.45, 0.5, 0.6, 0.75, 0.9, 1];
const SIZES = [0, 10, 64, 100, 128, 256, 300, 512, 1000];

function randomChain(rand: () => number, id: string, opts: { monotone?: boolean } = {}): RecordedChain {
  const pick = <T>(xs: readonly T[]) => at(xs, Math.floor(rand() * xs.length));
  const count = 1 + Math.floor(rand() * 8);
  const passes: RecordedPass[] = [];
  let n = rand() < 0.2 ? 0 : 1;
  let size = 1000;
  for (let i = 0; i < count; i++) {
    size = opts.monotone ? Math.max(0, size - 50 * Math.floor(rand() * 4)) : pick(SIZES);
    passes.push({
      pass_id: `${id}.${i}`,
      pass_number: n,
      current_size_bytes: size,
      semantic_density_score: rand() < 0.8 ? pick(DENSITIES) : rand(),
      is_parseable: rand() > 0.06,
      schema_valid: rand() > 0.06,
      checked: rand() < 0.2 ? { parseable: rand() > 0.1, schema_valid: rand() > 0.1 } : undefined,
    });
    // Mostly consecutive, sometimes a repeated or skipped pass number.
    n += rand() < 0.1 ? 0 : rand() < 0.1 ? 2 : 1;
  }
  if (!opts.monotone && rand() < 0.3) passes.reverse();
  const boundaries =
    rand() < 0.25
      ? [{ pass_number: Math.floor(rand() * (n + 1)), strategy: pick(["halt", "restore", "accept_loss"] as const) }]
      : [];
  // Some chains are guarded (their status): saved at a floor, mostly at a pass of theirs.
  const guarded_at = rand() < 0.2 ? (rand() < 0.8 ? pick(passes).pass_number : Math.floor(rand() * (n + 2))) : null;
  return { chain_id: id, passes, boundaries, guarded_at };
}

function randomFloor(rand: () => number): CompressionPolicy {
  return {
    min_size_bytes: rand() < 0.5 ? at(SIZES, Math.floor(rand() * SIZES.length)) + (rand() < 0.5 ? 1 : 0) : 0,
    min_semantic_density: rand() < 0.5 ? at(DENSITIES, Math.floor(rand() * DENSITIES.length)) : rand(),
    max_pass_number: Math.floor(rand() * 10),
  };
}

/** A class's outcome under a floor, by replaying every chain through the guard. */
function replayOutcome(chains: RecordedChain[], floor: CompressionPolicy): Outcome {
  let caught = 0;
  let failures = 0;
  let halted = 0;
  let saved = 0;
  let recorded = 0;
  for (const chain of chains) {
    if (chain.passes.length === 0) continue;
    const r = replayChain(chain, floor);
    if (r.failure !== null) {
      failures++;
      if (r.caught) caught++;
    } else {
      if (r.haltedEarly) halted++;
      saved += r.savedBytes ?? 0;
      recorded += r.recordedSavedBytes ?? 0;
    }
  }
  return {
    failures_caught: caught,
    failures_missed: failures - caught,
    healthy_halted_early: halted,
    compression_kept: recorded === 0 ? 1 : saved / recorded,
  };
}

describe("fast decisions equal the guard replay", () => {
  it("per chain, for random chains and floors", () => {
    const rand = seededRandom(15);
    for (let t = 0; t < 1500; t++) {
      const chain = randomChain(rand, `c${t}`);
      const profile = profileChains(toColumns([chain]));
      for (let f = 0; f < 5; f++) {
        const floor = randomFloor(rand);
        expect(outcomeOf(profile, floor), JSON.stringify({ chain, floor })).toEqual(replayOutcome([chain], floor));
      }
    }
  });

  it("over whole classes", () => {
    const rand = seededRandom(1511);
    for (let t = 0; t < 50; t++) {
      const chains = Array.from({ length: 40 }, (_, i) => randomChain(rand, `c${i}`));
      const profile: ClassProfile = profileChains(toColumns(chains));
      for (let f = 0; f < 10; f++) {
        const floor = randomFloor(rand);
        const fast = outcomeOf(profile, floor);
        const slow = replayOutcome(chains, floor);
        expect({ ...fast, compression_kept: 0 }).toEqual({ ...slow, compression_kept: 0 });
        expect(fast.compression_kept).toBeCloseTo(slow.compression_kept, 12);
      }
    }
  });
});

const maxOf = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
const minOf = (xs: number[]) => xs.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);

function byNameOf<T extends { name: string }>(options: readonly T[]): Record<"strict" | "balanced" | "lenient", T> {
  const find = (name: string) => {
    const found = options.find((o) => o.name === name);
    if (!found) throw new Error(`no ${name} option`);
    return found;
  };
  return { strict: find("strict"), balanced: find("balanced"), lenient: find("lenient") };
}

/** Every floor whose thresholds sit at, or just past, a recorded value. */
function everyFloor(chains: RecordedChain[]): CompressionPolicy[] {
  const sizes = new Set<number>([0]);
  const densities = new Set<number>([0, 1]);
  let maxPass = 0;
  for (const c of chains)
    for (const p of c.passes) {
      sizes.add(p.current_size_bytes).add(p.current_size_bytes + 1);
      densities.add(p.semantic_density_score);
      if (p.semantic_density_score < 1) densities.add(p.semantic_density_score + 1e-9);
      maxPass = Math.max(maxPass, p.pass_number);
    }
  const floors: CompressionPolicy[] = [];
  for (const min_size_bytes of sizes)
    for (const min_semantic_density of densities)
      for (let max_pass_number = 1; max_pass_number <= maxPass; max_pass_number++)
        floors.push({ min_size_bytes, min_semantic_density, max_pass_number });
  return floors;
}

describe("the search against an exhaustive one", () => {
  const current: CompressionPolicy = { min_size_bytes: 256, min_semantic_density: 0.5, max_pass_number: 4 };

  it("finds the best floor for each option, and reports what the guard replay reports", () => {
    const rand = seededRandom(42);
    for (let t = 0; t < 25; t++) {
      const chains = Array.from({ length: 12 + Math.floor(rand() * 10) }, (_, i) =>
        randomChain(rand, `c${i}`, { monotone: true }),
      );
      const result = recommendFloors(toColumns(chains), current);
      if (!result.ok) throw new Error("expected a recommendation");
      const { options, current: now } = result.recommendation;
      expect(now).toEqual(replayOutcome(chains, current));

      // Enumerated with the fast decisions, which the tests above hold equal to the replay.
      const profile = profileChains(toColumns(chains));
      const all = everyFloor(chains).map((floor) => outcomeOf(profile, floor));
      const mostCaught = maxOf(all.map((o) => o.failures_caught));
      const atMost = all.filter((o) => o.failures_caught === mostCaught);
      const fewestHalted = minOf(atMost.map((o) => o.healthy_halted_early));
      const strictKept = Math.max(
        ...atMost.filter((o) => o.healthy_halted_early === fewestHalted).map((o) => o.compression_kept),
      );
      const unhalted = all.filter((o) => o.healthy_halted_early === 0);
      const lenientCaught = maxOf(unhalted.map((o) => o.failures_caught));
      const bestScore = maxOf(all.map((o) => o.failures_caught - o.healthy_halted_early));
      const balancedKept = Math.max(
        ...all.filter((o) => o.failures_caught - o.healthy_halted_early === bestScore).map((o) => o.compression_kept),
      );

      const byName = byNameOf(options);
      for (const o of options) {
        const { name: _, policy, ...outcome } = o;
        expect(outcome, `${o.name} ${JSON.stringify(policy)}`).toEqual(replayOutcome(chains, policy));
        expect(Number.isInteger(policy.min_size_bytes) && Number.isInteger(policy.max_pass_number)).toBe(true);
        expect(policy.min_semantic_density).toBeGreaterThanOrEqual(0);
        expect(policy.min_semantic_density).toBeLessThanOrEqual(1);
      }
      expect(byName.strict.failures_caught).toBe(mostCaught);
      expect(byName.strict.healthy_halted_early).toBe(fewestHalted);
      expect(byName.strict.compression_kept).toBeCloseTo(strictKept, 12);
      expect(byName.lenient.healthy_halted_early).toBe(0);
      expect(byName.lenient.failures_caught).toBe(lenientCaught);
      expect(byName.balanced.failures_caught - byName.balanced.healthy_halted_early).toBe(bestScore);
      expect(byName.balanced.compression_kept).toBeCloseTo(balancedKept, 12);
    }
  }, 60_000);

  it("with a candidate budget smaller than the data, strict still catches all and lenient halts none", () => {
    const rand = seededRandom(7);
    for (let t = 0; t < 20; t++) {
      const chains = Array.from({ length: 40 }, (_, i) => randomChain(rand, `c${i}`));
      const result = recommendFloors(toColumns(chains), current, { candidatesPerAxis: 3, passCandidates: 2 });
      if (!result.ok) throw new Error("expected a recommendation");
      const byName = byNameOf(result.recommendation.options);
      const profile = profileChains(toColumns(chains));
      const all = everyFloor(chains).map((floor) => outcomeOf(profile, floor));
      expect(byName.strict.failures_caught).toBe(maxOf(all.map((o) => o.failures_caught)));
      expect(byName.lenient.healthy_halted_early).toBe(0);
      const lenientBest = Math.max(...all.filter((o) => o.healthy_halted_early === 0).map((o) => o.failures_caught));
      expect(byName.lenient.failures_caught).toBe(lenientBest);
      for (const o of result.recommendation.options) {
        const { name: _, policy, ...outcome } = o;
        expect(outcome).toEqual(replayOutcome(chains, policy));
      }
    }
  }, 60_000);
});
