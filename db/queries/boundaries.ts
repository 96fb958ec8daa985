import "server-only";
import { asc, eq } from "drizzle-orm";
import { getReadDb } from "../index";
import { boundaries } from "../schema";
import type { BoundaryWire } from "@/lib/schemas/boundaries";

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

export async function listChainBoundaries(chainId: string): Promise<BoundaryWire[]> {
  const db = await getReadDb();
  const rows = await db
    .select()
    .from(boundaries)
    .where(eq(boundaries.chainId, chainId))
    .orderBy(asc(boundaries.passNumber));
  return rows.map(toBoundaryWire);
}
