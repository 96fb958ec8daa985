// What survives of a chain's canaries, pass by pass, as the server reports it (docs/canaries.md):
// on a pass whose content it read, the canaries whose text is present; on a pass whose receipt
// came with a canary_check, the ids it names. Either way only canaries planted at or before the
// pass count: a canary planted at pass n is in pass n's input.
import type { Canary, CanaryKind } from "./canaries";
import type { IntegrityFinding } from "../chains/integrity";

export interface PlantedCanary extends Canary {
  pass_number: number;
}

interface Survival {
  canaries_surviving: string[];
  canary_retention: number;
}

/** The canaries planted at or before `passNumber`, in planting order. */
function plantedBy(planted: readonly PlantedCanary[], passNumber: number): PlantedCanary[] {
  return planted.filter((c) => c.pass_number <= passNumber);
}

/**
 * A pass's survival, or null when it cannot be told: no canary planted by then, or neither the
 * content nor a check. A check is the client's word for text the server may not have (an opaque
 * compactor's next output), so it is taken over the content when both came.
 */
export function survivalOf(
  planted: readonly PlantedCanary[],
  passNumber: number,
  seen: { content?: string | null; check?: { surviving: readonly string[] } | null },
): Survival | null {
  const by = plantedBy(planted, passNumber);
  if (by.length === 0) return null;
  let surviving: string[];
  if (seen.check) {
    const named = new Set(seen.check.surviving);
    surviving = by.filter((c) => named.has(c.id)).map((c) => c.id);
  } else if (typeof seen.content === "string") {
    const content = seen.content;
    surviving = by.filter((c) => content.includes(c.text)).map((c) => c.id);
  } else return null;
  return { canaries_surviving: surviving, canary_retention: surviving.length / by.length };
}

interface CanaryPass {
  pass_id: string;
  pass_number: number;
  canaries_surviving: readonly string[] | null;
  canary_retention: number | null;
}

/**
 * `canary_lost` findings of a chain, its passes in chain order: one per canary, at the first
 * reported pass it is missing from after it was planted; and one at the first pass whose
 * retention falls below the policy's `min_canary_retention`. A canary that comes back (a
 * restore) and goes again is lost again.
 */
export function canaryFindings(
  passes: readonly CanaryPass[],
  planted: readonly PlantedCanary[],
  minRetention: number | null,
): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  const missing = new Set<string>();
  let belowFloor = false;
  for (const p of passes) {
    if (p.canaries_surviving === null) continue;
    const surviving = new Set(p.canaries_surviving);
    const lostHere = plantedBy(planted, p.pass_number).filter((c) => !surviving.has(c.id) && !missing.has(c.id));
    for (const c of plantedBy(planted, p.pass_number)) if (surviving.has(c.id)) missing.delete(c.id);
    for (const c of lostHere) {
      missing.add(c.id);
      findings.push({
        kind: "canary_lost",
        pass_id: p.pass_id,
        pass_number: p.pass_number,
        detail: `Canary ${c.id} (${KIND_WORDS[c.kind]} ${JSON.stringify(c.text)}), planted at pass ${c.pass_number}, did not survive pass ${p.pass_number}.`,
      });
    }
    const low = minRetention !== null && p.canary_retention !== null && p.canary_retention < minRetention;
    if (low && !belowFloor) {
      findings.push({
        kind: "canary_lost",
        pass_id: p.pass_id,
        pass_number: p.pass_number,
        detail: `Canary retention ${percent(p.canary_retention as number)} at pass ${p.pass_number} is below the policy's min_canary_retention of ${percent(minRetention as number)}.`,
      });
    }
    belowFloor = low;
  }
  return findings;
}

const KIND_WORDS: Record<CanaryKind, string> = {
  number: "the number",
  path: "the path",
  hash: "the hash",
  error: "the error code",
};

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/** One point of the chain chart's canary line. */
export interface CanaryPoint {
  pass_id: string;
  pass_number: number;
  retention: number;
  surviving: number;
  planted: number;
}

/**
 * The canary line's points, from the passes whose survival is known (chain order) and the
 * chain's planted canaries; past `max` points, the lowest retention of each stretch is kept,
 * with the first and last, so a loss never disappears from a long chain's line.
 */
export function canaryPoints(
  passes: readonly { pass_id: string; pass_number: number; surviving: number; retention: number }[],
  planted: readonly Pick<PlantedCanary, "pass_number">[],
  max = 1000,
): CanaryPoint[] {
  const points = passes.map((p) => ({
    ...p,
    planted: planted.filter((c) => c.pass_number <= p.pass_number).length,
  }));
  if (points.length <= max) return points;
  const kept: CanaryPoint[] = [points[0] as CanaryPoint];
  const stride = (points.length - 2) / (max - 2);
  for (let k = 0; k < max - 2; k++) {
    const stretch = points.slice(1 + Math.floor(k * stride), 1 + Math.floor((k + 1) * stride));
    const lowest = stretch.reduce<CanaryPoint | null>(
      (low, p) => (!low || p.retention < low.retention ? p : low),
      null,
    );
    if (lowest) kept.push(lowest);
  }
  kept.push(points.at(-1) as CanaryPoint);
  return kept;
}

/** Chains with canaries by their latest known retention (the overview's figure). */
export interface CanaryRetentionCounts {
  /** Chains with canaries whose survival is known. */
  chains: number;
  /** Every planted canary survives at the latest known pass. */
  intact: number;
  partial: number;
  /** None survives. */
  lost: number;
  /** Below their class's min_canary_retention. */
  below_floor: number;
}
