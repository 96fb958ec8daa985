// biome-ignore-all lint/style/noNonNullAssertion: typed-array reads at indices the loops keep in bounds; noUncheckedIndexedAccess cannot see that.
// One chain replayed through the guard itself, pass by pass: the test oracle that the chain
// page's catches (found in SQL, db/queries/recommendation.ts) and the fast decisions of
// lib/recommend/profile.ts are held to. Test code: the app never replays a whole chain.
import { type CompressionPolicy, evaluatePass, type Verdict } from "@/lib/guard/guard";
import {
  failureOf,
  type FloorHalt,
  inReplayOrder,
  isBroken,
  type OptionCatch,
  type RecordedChain,
  savedUpTo,
  toColumns,
} from "@/lib/recommend";

export interface ChainReplay {
  /** Pass number of the chain's failure; null for a healthy or guarded chain. */
  failure: number | null;
  /** The first pass the guard would not have let through under the floor, if any. */
  halt: FloorHalt | null;
  /** Failing chains: the guard stopped at a pass before the failure. */
  caught: boolean | null;
  /** Healthy chains: the guard stopped at a pass before the last. */
  haltedEarly: boolean | null;
  /** Healthy chains: bytes saved up to the halt (or the end), and as recorded. */
  savedBytes: number | null;
  recordedSavedBytes: number | null;
}

const PROCEED: ReadonlySet<Verdict> = new Set(["SAFE_TO_COMPRESS", "NO_RECURSIVE_COMPRESSION"]);

export function replayChain(chain: RecordedChain, floor: CompressionPolicy): ChainReplay {
  const passes = inReplayOrder(chain.passes);
  const failure = failureOf(toColumns([chain]), 0);
  let halt: ChainReplay["halt"] = null;
  let haltIndex = -1;
  for (let i = 0; i < passes.length && halt === null; i++) {
    const p = passes[i]!;
    const manifest = evaluatePass(
      {
        pass_id: p.pass_id ?? `p${i}`,
        pass_number: p.pass_number,
        current_content_hash: p.current_content_hash ?? "",
        current_size_bytes: p.current_size_bytes,
        is_parseable: p.is_parseable,
        schema_valid: p.schema_valid,
        semantic_density_score: p.semantic_density_score,
      },
      floor,
    );
    if (!PROCEED.has(manifest.verdict)) {
      halt = {
        pass_id: p.pass_id ?? `p${i}`,
        pass_number: p.pass_number,
        verdict: manifest.verdict,
        directive: manifest.directive,
      };
      haltIndex = i;
    }
  }
  if (passes.length === 0) {
    return { failure, halt, caught: null, haltedEarly: null, savedBytes: null, recordedSavedBytes: null };
  }
  if (failure !== null) {
    return {
      failure,
      halt,
      caught: halt !== null && halt.pass_number < failure,
      haltedEarly: null,
      savedBytes: null,
      recordedSavedBytes: null,
    };
  }
  const first = passes[0]!.current_size_bytes;
  // A guarded chain counts as a healthy one that ended where the guard stopped it (its floor,
  // or a broken pass before it): the passes before that are what the recording kept.
  const broken = passes.find((p) => isBroken(p))?.pass_number ?? Number.POSITIVE_INFINITY;
  const end = chain.guarded_at == null ? null : Math.min(chain.guarded_at, broken);
  const kept = end === null ? passes : passes.filter((p) => p.pass_number < end);
  const last = kept[kept.length - 1] ?? passes[0]!;
  const recorded = Math.max(first - last.current_size_bytes, 0);
  const haltedEarly = halt !== null && halt.pass_number < (end ?? last.pass_number);
  return {
    failure,
    halt,
    caught: null,
    haltedEarly,
    savedBytes: haltedEarly ? savedUpTo(first, passes[haltIndex]!.current_size_bytes, recorded) : recorded,
    recordedSavedBytes: recorded,
  };
}

/**
 * For a failing chain, what each recommended floor would have done to it; null for a healthy
 * one. The reference for `getChainCatches`, which finds the same in the database.
 */
export function catchesOf(
  chain: RecordedChain,
  options: readonly { name: string; policy: CompressionPolicy }[],
): { failure: number; options: OptionCatch[] } | null {
  const replays = options.map((o) => ({ ...o, replay: replayChain(chain, o.policy) }));
  const failure = replays[0]?.replay.failure ?? failureOf(toColumns([chain]), 0);
  if (failure === null) return null;
  return {
    failure,
    options: replays.map(({ name, policy, replay }) => ({
      name,
      policy,
      caught: replay.caught === true,
      halt: replay.halt,
    })),
  };
}
