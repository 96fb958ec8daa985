// A chain's facts ledger as stored (docs/facts.md): every fact row by rank and the ledger's row,
// for tests that compare what two ways of sending the same passes leave.
import { sql } from "drizzle-orm";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";

export async function ledgerRows(chainId: string) {
  const db = await getDb();
  const facts = await queryRows(
    db,
    sql`select rank, fact_key, fact, kind, salience, fate, first_lost_pass, restored_at_pass, recoverable_from
        from chain_facts where chain_id = ${chainId} order by rank`,
    {
      rank: col.int,
      fact_key: col.text,
      fact: col.text,
      kind: col.text,
      salience: col.number,
      fate: col.text,
      first_lost_pass: col.number.nullable(),
      restored_at_pass: col.number.nullable(),
      recoverable_from: col.text.nullable(),
    },
  );
  const ledger = await queryRows(
    db,
    sql`select digest, in_source, last_pass, passes_folded from chain_fact_ledgers where chain_id = ${chainId}`,
    { digest: col.text, in_source: col.int, last_pass: col.number.nullable(), passes_folded: col.int },
  );
  return { facts, ledger };
}
