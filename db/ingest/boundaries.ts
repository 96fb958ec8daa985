// The boundary ingest use case: boundary receipts stored all or nothing, idempotent per
// (chain_id, pass_number), with the chain summaries refreshed.
import "server-only";
import { recordBoundaries, recordCollapse, recordGuarded, recordIntegrityFindings } from "@/lib/observability/metrics";
import { sql } from "drizzle-orm";
import { getDb, summariesSettled } from "../index";
import { retryTransient } from "../retry";
import { boundaries } from "../schema";
import { lockSummaries, refreshChainSummaries } from "../queries/chain-summary";
import { toBoundaryWire } from "../queries/boundaries";
import { idempotencyConflict, storeIdempotentBatch, uniqueEntries } from "./idempotent-batch";
import { readChainSnapshots, trackRollups } from "./rollups";
import { notifyChainsChanged } from "../queries/chain-events";
import { recordBoundaryEvents } from "../queries/ingest-events";
import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { BoundaryReceipt } from "@/lib/schemas/boundaries";

const keyOf = (chainId: string, passNumber: number) => JSON.stringify([chainId, passNumber]);
const key = (b: BoundaryReceipt) => keyOf(b.chain_id, b.pass_number);

const conflict = (index: number, b: BoundaryReceipt) =>
  idempotencyConflict(
    `Boundary ${index}`,
    `boundaries.${index}`,
    `chain_id ${JSON.stringify(b.chain_id)} and pass_number ${b.pass_number}`,
    "a boundary for this chain and pass number",
  );

/** Stores boundary receipts all or nothing; natural key (chain_id, pass_number). */
export async function ingestBoundaries(
  receipts: readonly BoundaryReceipt[],
): Promise<{ results: BoundaryWire[]; created: number }> {
  const db = await getDb();
  const entries = uniqueEntries(receipts, key, conflict);
  // The passes this process stored are folded first, so a boundary sent after its passes is
  // judged against them, as it would be had they been folded at once.
  await summariesSettled();
  // A deadlock or serialisation failure rolls it all back: run it again before answering 503.
  const outcome = await retryTransient(() =>
    db.transaction(async (tx) => {
      const chainIds = [...new Set(receipts.map((b) => b.chain_id))];
      await lockSummaries(tx);
      const before = await readChainSnapshots(tx, chainIds);
      const rollups = trackRollups(tx, before);
      // Fresh on every attempt, since a retry starts over.
      const strategies: BoundaryWire["strategy"][] = [];
      const insertedRows: { chain_id: string; pass_number: number; strategy: string }[] = [];
      const stored = await storeIdempotentBatch(
        receipts,
        {
          key,
          conflict,
          insert: async (batch) => {
            const values = batch.map(({ item: b, digest }) => ({
              chainId: b.chain_id,
              passNumber: b.pass_number,
              strategy: b.strategy,
              reason: b.reason,
              restorePassId: b.restore_pass_id ?? null,
              relaxedPolicy: b.relaxed_policy ?? null,
              bodyDigest: digest,
            }));
            const inserted = await tx.insert(boundaries).values(values).onConflictDoNothing().returning();
            if (inserted.length > 0) await refreshChainSummaries(tx, [...new Set(inserted.map((r) => r.chainId))]);
            strategies.push(...inserted.map((row) => row.strategy));
            insertedRows.push(
              ...inserted.map((row) => ({
                chain_id: row.chainId,
                pass_number: row.passNumber,
                strategy: row.strategy,
              })),
            );
            return new Map(inserted.map((row) => [keyOf(row.chainId, row.passNumber), toBoundaryWire(row)]));
          },
          readStored: async (batch) => {
            const keys = JSON.stringify(
              batch.map(({ item }) => ({ chain_id: item.chain_id, pass_number: item.pass_number })),
            );
            const rows = await tx
              .select()
              .from(boundaries)
              .where(
                sql`(${boundaries.chainId}, ${boundaries.passNumber}) in (select chain_id, pass_number from json_to_recordset(${keys}::json) as k(chain_id text, pass_number bigint))`,
              );
            return new Map(
              rows.map((row) => [
                keyOf(row.chainId, row.passNumber),
                { digest: row.bodyDigest, result: toBoundaryWire(row) },
              ]),
            );
          },
        },
        entries,
      );
      const after = await readChainSnapshots(tx, [...new Set(insertedRows.map((b) => b.chain_id))]);
      await rollups.commit(after);
      // A boundary can answer a floor (a save); a halt or restore that arrives after the passes
      // it judges can make a finding, and a collapse.
      const effects = await recordBoundaryEvents(tx, before, after, insertedRows);
      await notifyChainsChanged(tx, chainIds);
      return { stored, strategies, effects };
    }),
  );
  // Counted once committed: a refused batch counts nothing.
  recordBoundaries(outcome.strategies);
  recordIntegrityFindings(outcome.effects.integrityKinds);
  for (const c of outcome.effects.collapses) recordCollapse(c.content_class, c.verdict);
  for (const g of outcome.effects.guards) recordGuarded(g.content_class, g.strategy);
  return outcome.stored;
}
