// The canary survival of a batch of passes (docs/canaries.md): each pass whose content the
// server read, or whose receipt came with a canary_check, is told which of its chain's planted
// canaries survive. The chain's canaries are read only for chains the batch can report on.
import "server-only";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { type PlantedCanary, survivalOf } from "@/lib/canaries/survival";
import { canarySchema, type PassReceipt } from "@/lib/schemas/passes";

interface CanaryRow {
  chain_id: string;
  pass_number: number;
  canaries_surviving: string[] | null;
  canary_retention: number | null;
}

/**
 * Fills each row's canaries_surviving and canary_retention in place; `contentOf` answers the
 * content the server read for the receipt at that index (null when it read none).
 */
export async function fillCanarySurvival(
  tx: Executor,
  receipts: readonly PassReceipt[],
  rows: readonly CanaryRow[],
  contentOf: (i: number) => string | null | undefined,
): Promise<void> {
  const asking = new Set<string>();
  receipts.forEach((r, i) => {
    if (r.canaries || r.canary_check || contentOf(i) != null) asking.add(r.chain_id);
  });
  if (asking.size === 0) return;
  const planted = new Map<string, PlantedCanary[]>();
  const add = (chainId: string, passNumber: number, list: readonly z.infer<typeof canarySchema>[]) => {
    const known = planted.get(chainId) ?? [];
    for (const c of list) if (!known.some((k) => k.id === c.id)) known.push({ ...c, pass_number: passNumber });
    planted.set(chainId, known);
  };
  const stored = await queryRows(
    tx,
    sql`select chain_id, pass_number, canaries from passes
        where chain_id in ${[...asking]} and canaries is not null
        order by chain_id, pass_number, id`,
    { chain_id: col.text, pass_number: col.int, canaries: col.jsonOf(z.array(canarySchema)) },
  );
  for (const s of stored) add(s.chain_id, s.pass_number, s.canaries);
  for (const r of receipts) if (r.canaries) add(r.chain_id, r.pass_number, r.canaries);
  receipts.forEach((r, i) => {
    const chain = planted.get(r.chain_id);
    const row = rows[i] as CanaryRow;
    if (!chain) return;
    const survival = survivalOf(chain, r.pass_number, { content: contentOf(i), check: r.canary_check });
    if (!survival) return;
    row.canaries_surviving = survival.canaries_surviving;
    row.canary_retention = survival.canary_retention;
  });
}
