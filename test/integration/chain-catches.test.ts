// The chain page's "would a recommended floor have caught this?" (db/queries/recommendation.ts)
// finds the failure and each floor's halt in the database. Here it must agree with a replay of
// the whole chain through the guard (`catchesOf`, test/support/recommend-replay.ts) on random chains:
// ties in pass numbers, client-refused passes, restore and accept_loss boundaries, and floors
// set exactly at recorded sizes, densities and pass numbers.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { GET as getChainRoute } from "@/app/api/v1/chains/[chain_id]/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { getDb } from "@/db/index";
import { boundaries, passes } from "@/db/schema";
import { getChainCatches, getChainFailure } from "@/db/queries/recommendation";
import { chainOutcomeOf } from "@/lib/chains/outcome";
import { COLLAPSE_VERDICTS, type CompressionPolicy, type Verdict } from "@/lib/guard/guard";
import type { RecordedChain } from "@/lib/recommend";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { catchesOf } from "../support/recommend-replay";
import { seededRandom } from "../support/random";
import { call, post } from "./api-helpers";

setUpTestDatabase();

const CLASS = "catches";
const SEED = Number(process.env.CATCHES_SEED ?? Date.now() % 1_000_000);

/** The whole chain as recorded, read plainly: the reference replay's input. */
async function readWholeChain(chainId: string): Promise<RecordedChain> {
  const db = await getDb();
  const passRows = await db
    .select({
      pass_id: passes.passId,
      pass_number: passes.passNumber,
      current_content_hash: passes.currentContentHash,
      current_size_bytes: passes.currentSizeBytes,
      semantic_density_score: passes.semanticDensityScore,
      is_parseable: passes.isParseable,
      schema_valid: passes.schemaValid,
    })
    .from(passes)
    .where(and(eq(passes.chainId, chainId), eq(passes.contentClass, CLASS)))
    .orderBy(passes.passNumber, passes.id);
  const boundaryRows = await db
    .select({ pass_number: boundaries.passNumber, strategy: boundaries.strategy })
    .from(boundaries)
    .where(eq(boundaries.chainId, chainId));
  // A save is no failure: where the guard stopped a guarded chain (its first floor pass), by the
  // plain rule (lib/chains/outcome.ts) on the chain's detail as the API answers it.
  const detail = (await call(getChainRoute, jsonRequest(`/api/v1/chains/${chainId}`), params({ chain_id: chainId })))
    .body as {
    passes: { pass_number: number; effective_verdict: Verdict }[];
    boundaries: { pass_number: number }[];
    integrity: { kind: never }[];
  };
  const floors = detail.passes.filter((p) => COLLAPSE_VERDICTS.has(p.effective_verdict)).map((p) => p.pass_number);
  const guarded_at =
    chainOutcomeOf(detail.passes, detail.boundaries, detail.integrity) === "guarded" ? Math.min(...floors) : null;
  return { chain_id: chainId, passes: passRows, boundaries: boundaryRows, guarded_at };
}

describe(`a chain's catches, found in the database (seed ${SEED})`, () => {
  it("agree with a replay of the whole chain through the guard", async () => {
    const rnd = seededRandom(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const chains: string[] = [];
    const values = { sizes: new Set<number>(), densities: new Set<number>(), numbers: new Set<number>() };
    for (let c = 0; c < 24; c++) {
      const id = `chain-${c}`;
      chains.push(id);
      const length = 1 + Math.floor(rnd() * 12);
      const receipts = [];
      for (let i = 0; i < length; i++) {
        // Pass numbers from 0, with repeats and gaps; sizes and densities from small sets so
        // floors land exactly on recorded values.
        const n = Math.max(0, i + pick([-1, 0, 0, 0, 1]));
        const size = pick([40, 100, 250, 256, 1000, 4096]);
        const density = pick([0, 0.1, 0.30000000000000004, 0.35, 0.5, 0.9, 1]);
        values.sizes.add(size);
        values.densities.add(density);
        values.numbers.add(n);
        receipts.push({
          chain_id: id,
          pass_id: `${id}.p${i}`,
          pass_number: n,
          current_content_hash: `${id}:${i}`,
          current_size_bytes: size,
          semantic_density_score: density,
          is_parseable: rnd() > 0.08,
          schema_valid: rnd() > 0.08,
          content_class: CLASS,
        });
      }
      const answer = await post(postPasses, "/api/v1/passes", { receipts });
      expect(answer.status, answer.text).toBe(201);
      if (rnd() < 0.4) {
        const strategy = pick(["halt", "restore", "accept_loss"] as const);
        const boundary = await post(postBoundaries, "/api/v1/boundaries", {
          chain_id: id,
          pass_number: Math.floor(rnd() * (length + 2)),
          strategy,
          reason: "test",
          ...(strategy === "restore" ? { restore_pass_id: `${id}.p0` } : {}),
        });
        expect(boundary.status, boundary.text).toBe(201);
      }
    }
    const options: { name: string; policy: CompressionPolicy }[] = [];
    for (let o = 0; o < 8; o++) {
      options.push({
        name: `option-${o}`,
        policy: {
          min_size_bytes: pick([...values.sizes, 0, 1e9]) + pick([0, 0, 1]),
          min_semantic_density: pick([...values.densities, 0.2]),
          max_pass_number: pick([...values.numbers, 1, 1_000_000]),
        },
      });
    }

    let failing = 0;
    let caught = 0;
    for (const id of chains) {
      const whole = await readWholeChain(id);
      const expected = catchesOf(whole, options);
      const failure = await getChainFailure(id, CLASS);
      expect(failure, id).toBe(expected?.failure ?? null);
      if (failure === null) continue;
      failing++;
      const found = await getChainCatches(id, CLASS, failure, options);
      // Only the passes up to the failure are looked at: a halt after it is none.
      const upToFailure = expected?.options.map((o) => ({
        ...o,
        halt: o.halt && o.halt.pass_number <= failure ? o.halt : null,
      }));
      expect(found, id).toEqual(upToFailure);
      caught += found.filter((o) => o.caught).length;
      expect(await getChainCatches(id, CLASS, failure, []), id).toEqual([]);
    }
    // The seed made a case worth checking: some chains fail, and some floors catch them.
    expect(failing).toBeGreaterThan(3);
    expect(caught).toBeGreaterThan(0);
  });
});
