// Ingest folds new passes into the `chains` summary rows instead of recomputing each chain's
// history. After every write of a random sequence (in order, late, repeated and gapped
// passes, retries, conflicts, boundaries, two policies) the folded rows must equal a full
// recompute from the passes themselves.
import { eq, gt, or } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { chains } from "@/db/schema";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { refreshChainSummaries } from "@/db/queries/chain-summary";
import { getChain, getChainSummary } from "@/db/queries/chains";
import { chainOutcomeOf } from "@/lib/chains/outcome";
import { ingestPasses } from "@/db/ingest/passes";
import { updatePolicy } from "@/db/queries/policies";
import { boundaryReceiptSchema } from "@/lib/schemas/boundaries";
import { passReceiptSchema, type PassReceipt } from "@/lib/schemas/passes";
import { seededRandom } from "../support/random";
import { setUpTestDatabase } from "../support/database";
import { at } from "../support/at";

setUpTestDatabase();

const CHAINS = Array.from({ length: 8 }, (_, i) => `fold-${i}`);
const HASHES = ["h0", "h1"];

async function summaries(): Promise<string> {
  // As a page of this process reads them: once the summariser has folded what was stored.
  await summariesSettled();
  const db = await getDb();
  const rows = await db
    .select()
    .from(chains)
    .where(or(gt(chains.passCount, 0), gt(chains.boundaryCount, 0)))
    .orderBy(chains.chainId);
  return JSON.stringify(rows);
}

/** Chains an agent takes to a floor and answers there, made as the test goes (beside CHAINS). */
const SAVED: string[] = [];

async function recomputeAll(): Promise<void> {
  const db = await getDb();
  await db.transaction((tx) => refreshChainSummaries(tx, [...CHAINS, ...SAVED]));
}

describe("chain summaries kept incrementally", () => {
  it.each([7, 11, 23])("equal a full recompute after every write (seed %i)", async (seed) => {
    const rnd = seededRandom(seed);
    const pick = <T>(xs: readonly T[]) => at(xs, Math.floor(rnd() * xs.length));
    const sent = new Map<string, PassReceipt>();
    const nextNumber = new Map<string, number>();
    await updatePolicy("fold", {
      min_size_bytes: 10,
      min_semantic_density: 0.02,
      max_pass_number: 1000,
      required_fields: [],
    });

    let writes = 0;
    const seen = { continued_after_halt: 0, restore_not_honoured: 0, guarded: 0, collapsed: 0 };
    const savedLast = new Map<string, number>();
    const savedPass = (chain: string, n: number, floor: boolean) =>
      passReceiptSchema.parse({
        chain_id: chain,
        pass_id: `${chain}-n${n}`,
        pass_number: n,
        input_content_hash: n > 1 ? `${chain}-h${n - 1}` : null,
        current_content_hash: `${chain}-h${n}`,
        current_size_bytes: 400,
        is_parseable: !(floor && rnd() < 0.5),
        schema_valid: true,
        semantic_density_score: floor ? 0.01 : 0.5,
        content_class: "fold",
      });
    for (let round = 0; round < 120; round++) {
      if (rnd() < 0.08) {
        // A chain taken to a floor and answered there, or one more pass on such a chain:
        // sometimes from the restored pass's output, sometimes past the floor.
        const known = [...savedLast.keys()];
        if (known.length > 0 && rnd() < 0.4) {
          const chain = pick(known);
          const n = (savedLast.get(chain) ?? 0) + 1;
          savedLast.set(chain, n);
          await ingestPasses([
            { ...savedPass(chain, n, rnd() < 0.3), input_content_hash: `${chain}-h${n - (rnd() < 0.5 ? 2 : 1)}` },
          ]);
        } else {
          const chain = `fold-saved-${seed}-${round}`;
          const last = 2 + Math.floor(rnd() * 3);
          SAVED.push(chain);
          savedLast.set(chain, last);
          await ingestPasses(Array.from({ length: last }, (_, i) => savedPass(chain, i + 1, i + 1 === last)));
          const strategy = pick(["halt", "restore", "accept_loss"] as const);
          await ingestBoundaries([
            boundaryReceiptSchema.parse({
              chain_id: chain,
              pass_number: last,
              strategy,
              reason: "floor",
              restore_pass_id: strategy === "restore" ? `${chain}-n${last - 1}` : undefined,
            }),
          ]);
        }
      } else if (rnd() < 0.15) {
        const restoreTarget = (chain: string) => {
          const received = [...sent.values()].filter((p) => p.chain_id === chain).map((p) => p.pass_id);
          return received.length > 0 && rnd() < 0.8 ? pick(received) : `${chain}-p${Math.floor(rnd() * 16)}`;
        };
        const items = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
          const chain = pick(CHAINS);
          const strategy = pick(["halt", "restore", "accept_loss"] as const);
          // Often at a pass that reached its floor (as an agent answers one), else anywhere.
          const floors = [...sent.values()].filter(
            (p) =>
              p.chain_id === chain &&
              (!p.is_parseable || !p.schema_valid || p.semantic_density_score < 0.02 || p.current_size_bytes < 10),
          );
          return boundaryReceiptSchema.parse({
            chain_id: chain,
            pass_number: floors.length > 0 && rnd() < 0.5 ? pick(floors).pass_number : Math.floor(rnd() * 8),
            strategy,
            reason: `r${seed}`,
            // Mostly a received pass, sometimes one never received.
            restore_pass_id: strategy === "restore" ? restoreTarget(chain) : undefined,
          });
        });
        await ingestBoundaries(items).catch((e: { code?: string }) => {
          if (e.code !== "idempotency_conflict") throw e;
        });
      } else {
        const items: PassReceipt[] = [];
        for (let i = 1 + Math.floor(rnd() * 12); i > 0; i--) {
          const chain = pick(CHAINS);
          const inOrder = rnd() < 0.75;
          const previous = nextNumber.get(chain);
          const number = inOrder
            ? (previous ?? Math.floor(rnd() * 3)) + (rnd() < 0.1 ? 1 : 0) - (rnd() < 0.1 && (previous ?? 0) > 0 ? 1 : 0)
            : Math.floor(rnd() * 10);
          if (inOrder) nextNumber.set(chain, number + 1);
          const passId =
            inOrder && rnd() < 0.9
              ? `${chain}-n${number}-${Math.floor(rnd() * 1e6)}`
              : `${chain}-p${Math.floor(rnd() * 14)}`;
          const retry = sent.get(`${chain}/${passId}`);
          items.push(
            retry && rnd() < 0.7
              ? retry
              : passReceiptSchema.parse({
                  chain_id: chain,
                  pass_id: passId,
                  pass_number: number,
                  input_content_hash: rnd() < 0.2 ? null : pick(HASHES),
                  current_content_hash: pick(HASHES),
                  current_size_bytes: Math.floor(rnd() * 600),
                  is_parseable: rnd() > 0.03,
                  schema_valid: rnd() > 0.03,
                  semantic_density_score: Math.round(rnd() * 100) / 100,
                  content_class: rnd() < 0.85 ? "fold" : "default",
                  created_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(rnd() * 1e9)).toISOString(),
                  verdict: rnd() < 0.3 ? "SAFE_TO_COMPRESS" : undefined,
                }),
          );
        }
        try {
          await ingestPasses(items);
          for (const item of items)
            if (!sent.has(`${item.chain_id}/${item.pass_id}`)) sent.set(`${item.chain_id}/${item.pass_id}`, item);
        } catch (e) {
          if ((e as { code?: string }).code !== "idempotency_conflict") throw e;
        }
      }
      const folded = await summaries();
      await recomputeAll();
      expect(folded, `round ${round}`).toBe(await summaries());
      // And the counts are the pure rules' (lib/chains/integrity.ts), kind by kind (every few
      // rounds: reading every chain whole each round would make the test slow).
      for (const chainId of round % 8 === 7 ? [...CHAINS, ...SAVED] : []) {
        const [row] = await (await getDb())
          .select({
            integrity_count: chains.integrityCount,
            continued_after_halt_count: chains.continuedAfterHaltCount,
            restore_not_honoured_count: chains.restoreNotHonouredCount,
          })
          .from(chains)
          .where(eq(chains.chainId, chainId));
        const detail = await getChain(chainId);
        if (!row || !detail) continue;
        const count = (kind?: string) => detail.integrity.filter((f) => kind === undefined || f.kind === kind).length;
        expect(
          [row.integrity_count, row.continued_after_halt_count, row.restore_not_honoured_count],
          `${chainId} round ${round}`,
        ).toEqual([count(), count("continued_after_halt"), count("restore_not_honoured")]);
        seen.continued_after_halt += count("continued_after_halt");
        seen.restore_not_honoured += count("restore_not_honoured");
        // Saves and failures as the summary says them are the plain rule's (lib/chains/outcome.ts).
        const outcome = chainOutcomeOf(detail.passes, detail.boundaries, detail.integrity);
        const statuses = (await getChainSummary(chainId))?.statuses ?? [];
        expect(
          [statuses.includes("collapsed"), statuses.includes("guarded")],
          `${chainId} round ${round}: ${outcome}`,
        ).toEqual([outcome === "collapsed", outcome === "guarded"]);
        if (outcome) seen[outcome]++;
      }
      writes++;
    }
    expect(writes).toBe(120);
    // The random writes did reach both directive kinds.
    expect(seen.continued_after_halt).toBeGreaterThan(0);
    expect(seen.restore_not_honoured).toBeGreaterThan(0);
    // And both outcomes.
    expect(seen.guarded).toBeGreaterThan(0);
    expect(seen.collapsed).toBeGreaterThan(0);
  });
});
