import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../index";
import { boundaries } from "../schema";
import { lockChains, refreshChainSummaries } from "./chain-summary";
import { ApiError } from "@/lib/errors";
import { bodyDigest } from "@/lib/guard/canonical";
import type { BoundaryReceipt } from "@/lib/schemas/boundaries";
import type { BoundaryWire } from "@/lib/chains/types";

export type BoundaryRow = typeof boundaries.$inferSelect;

export function toBoundaryWire(row: BoundaryRow): BoundaryWire {
  return {
    chain_id: row.chainId,
    pass_number: row.passNumber,
    strategy: row.strategy,
    reason: row.reason,
    restore_pass_id: row.restorePassId,
    relaxed_policy: row.relaxedPolicy,
    created_at: row.createdAt.toISOString(),
  };
}

const keyOf = (chainId: string, passNumber: number) => JSON.stringify([chainId, passNumber]);

function conflict(index: number, b: BoundaryReceipt): ApiError {
  return new ApiError(
    "idempotency_conflict",
    `Boundary ${index} reuses chain_id ${JSON.stringify(b.chain_id)} and pass_number ${b.pass_number} with a different body.`,
    {
      issues: [
        {
          path: `boundaries.${index}`,
          message: "a boundary for this chain and pass number was already stored with different content",
        },
      ],
    },
  );
}

/** Stores boundary receipts all or nothing; natural key (chain_id, pass_number). */
export async function ingestBoundaries(
  receipts: readonly BoundaryReceipt[],
): Promise<{ results: BoundaryWire[]; created: number }> {
  const db = await getDb();
  const digests = receipts.map((b) => bodyDigest(b));
  const firstIndex = new Map<string, number>();
  receipts.forEach((b, i) => {
    const key = keyOf(b.chain_id, b.pass_number);
    const seen = firstIndex.get(key);
    if (seen === undefined) firstIndex.set(key, i);
    else if (digests[seen] !== digests[i]) throw conflict(i, b);
  });

  return db.transaction(async (tx) => {
    await lockChains(
      tx,
      receipts.map((b) => b.chain_id),
    );
    const values = [...firstIndex.values()].map((i) => {
      const b = receipts[i];
      return {
        chainId: b.chain_id,
        passNumber: b.pass_number,
        strategy: b.strategy,
        reason: b.reason,
        restorePassId: b.restore_pass_id ?? null,
        relaxedPolicy: b.relaxed_policy ?? null,
        bodyDigest: digests[i],
      };
    });
    const inserted = await tx.insert(boundaries).values(values).onConflictDoNothing().returning();
    const byKey = new Map(inserted.map((row) => [keyOf(row.chainId, row.passNumber), row]));

    const retried = values.filter((v) => !byKey.has(keyOf(v.chainId, v.passNumber)));
    if (retried.length > 0) {
      const keys = JSON.stringify(retried.map((v) => ({ chain_id: v.chainId, pass_number: v.passNumber })));
      const rows = await tx
        .select()
        .from(boundaries)
        .where(
          sql`(${boundaries.chainId}, ${boundaries.passNumber}) in (select chain_id, pass_number from json_to_recordset(${keys}::json) as k(chain_id text, pass_number bigint))`,
        );
      for (const row of rows) {
        const key = keyOf(row.chainId, row.passNumber);
        const index = firstIndex.get(key)!;
        if (row.bodyDigest !== digests[index]) throw conflict(index, receipts[index]);
        byKey.set(key, row);
      }
    }

    if (inserted.length > 0) await refreshChainSummaries(tx, [...new Set(inserted.map((r) => r.chainId))]);
    return {
      results: receipts.map((b) => toBoundaryWire(byKey.get(keyOf(b.chain_id, b.pass_number))!)),
      created: inserted.length,
    };
  });
}
