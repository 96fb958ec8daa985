// What-if on a content class's floor: how each recorded chain's collapse point moves when
// its passes are replayed through the guard under a candidate floor instead of the floor
// in force.
import type { Verdict } from "../guard/guard";

export const MOVEMENTS = [
  "newly_collapsing",
  "earlier",
  "later",
  "no_longer_collapsing",
  "unchanged_collapsed",
  "unchanged_healthy",
] as const;
export type Movement = (typeof MOVEMENTS)[number];

export const MOVEMENT_LABEL: Record<Movement, string> = {
  newly_collapsing: "Newly collapsing",
  earlier: "Collapse earlier",
  later: "Collapse later",
  no_longer_collapsing: "No longer collapsing",
  unchanged_collapsed: "Collapse at the same pass",
  unchanged_healthy: "Still never collapse",
};

/** Where a chain's collapse point goes from `current` to `candidate` (pass numbers, null: never collapses). */
export function classifyMovement(current: number | null, candidate: number | null): Movement {
  if (current === null) return candidate === null ? "unchanged_healthy" : "newly_collapsing";
  if (candidate === null) return "no_longer_collapsing";
  if (candidate < current) return "earlier";
  if (candidate > current) return "later";
  return "unchanged_collapsed";
}

export interface ReplayedChain {
  chain_id: string;
  pass_count: number;
  current: { pass_id: string; pass_number: number; verdict: Verdict } | null;
  candidate: { pass_id: string; pass_number: number; verdict: Verdict; directive: string } | null;
}

export interface WhatIfResult {
  counts: Record<Movement, number>;
  /** Per movement, the first chains (most affected first), up to the limit asked for. */
  chains: Record<Movement, (ReplayedChain & { movement: Movement })[]>;
  total: number;
}

/** Sorts chains into movements; within one, the biggest moves come first. */
export function summariseWhatIf(chains: readonly ReplayedChain[], perMovement: number): WhatIfResult {
  const counts = Object.fromEntries(MOVEMENTS.map((m) => [m, 0])) as Record<Movement, number>;
  const grouped = Object.fromEntries(
    MOVEMENTS.map((m) => [m, [] as (ReplayedChain & { movement: Movement })[]]),
  ) as WhatIfResult["chains"];
  for (const chain of chains) {
    const movement = classifyMovement(chain.current?.pass_number ?? null, chain.candidate?.pass_number ?? null);
    counts[movement]++;
    grouped[movement].push({ ...chain, movement });
  }
  const shift = (c: ReplayedChain) =>
    Math.abs((c.candidate?.pass_number ?? c.pass_count + 1) - (c.current?.pass_number ?? c.pass_count + 1));
  for (const m of MOVEMENTS) {
    grouped[m].sort((a, b) => shift(b) - shift(a) || (a.chain_id < b.chain_id ? -1 : 1));
    grouped[m] = grouped[m].slice(0, perMovement);
  }
  return { counts, chains: grouped, total: chains.length };
}
