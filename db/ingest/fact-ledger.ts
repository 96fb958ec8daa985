// The facts ledger at ingest (docs/facts.md): each pass measured against its chain's source is
// folded into the chain's ledger, in pass order, from the states the measurement pool's worker
// gave for each listed fact (lib/measure/fact-ledger.ts). A chain's ledger is made from the list
// the first such pass brings; every later pass sends only the facts it does not state.
import "server-only";
import { sql } from "drizzle-orm";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { numberArray, textArray } from "./pg-arrays";
import { type FactStates, LOST, RECOVERABLE, type SourceFacts } from "@/lib/measure/fact-ledger";

/** One measured pass's states, and the list when its chain had no ledger yet. */
export interface LedgerPass {
  chainId: string;
  passNumber: number;
  facts: FactStates & { list?: SourceFacts };
}

/** The chains among `chainIds` that have a ledger: their passes need send only states. */
export async function chainsWithLedger(tx: Executor, chainIds: readonly string[]): Promise<Set<string>> {
  if (chainIds.length === 0) return new Set();
  const rows = await queryRows(
    tx,
    sql`select chain_id from chain_fact_ledgers where chain_id in ${[...new Set(chainIds)]}`,
    { chain_id: col.text },
  );
  return new Set(rows.map((r) => r.chain_id));
}

const byChainThenPass = (a: LedgerPass, b: LedgerPass) =>
  a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : a.passNumber - b.passNumber;

/**
 * Folds the passes into their chains' ledgers. A pass at or before the latest pass folded (a
 * late arrival) is not folded: the ledger reads a chain forwards. A pass measured under another
 * list of facts than the ledger's (the method changed) starts the ledger again from itself
 * when it brought the list, and otherwise drops the ledger, so the chain's next pass brings one.
 */
export async function foldFactLedgers(tx: Executor, passes: readonly LedgerPass[]): Promise<void> {
  if (passes.length === 0) return;
  const sorted = [...passes].sort(byChainThenPass);
  const chains = [...new Set(sorted.map((p) => p.chainId))];
  // Locked in chain order, so two batches of the same chains queue rather than deadlock.
  const held = await queryRows(
    tx,
    sql`select chain_id, digest, last_pass from chain_fact_ledgers
        where chain_id in ${chains} order by chain_id for update`,
    { chain_id: col.text, digest: col.text, last_pass: col.number.nullable() },
  );
  const ledgers = new Map(held.map((l) => [l.chain_id, { digest: l.digest, lastPass: l.last_pass }]));
  for (const pass of sorted) {
    let ledger = ledgers.get(pass.chainId);
    if (ledger && ledger.digest !== pass.facts.digest) {
      await tx.execute(sql`delete from chain_fact_ledgers where chain_id = ${pass.chainId}`);
      ledgers.delete(pass.chainId);
      ledger = undefined;
    }
    if (!ledger) {
      const list = pass.facts.list;
      if (!list || list.digest !== pass.facts.digest) continue;
      ledger = await createLedger(tx, pass.chainId, list);
      ledgers.set(pass.chainId, ledger);
      if (ledger.digest !== pass.facts.digest) continue;
    }
    if (ledger.lastPass !== null && pass.passNumber <= ledger.lastPass) continue;
    await foldPass(tx, pass);
    ledger.lastPass = pass.passNumber;
  }
}

/**
 * Makes the chain's ledger from the list, and answers it as stored: a batch of the same chain
 * that made it first (its insert waits for that one's commit) keeps its own, and its passes.
 */
async function createLedger(
  tx: Executor,
  chainId: string,
  list: SourceFacts,
): Promise<{ digest: string; lastPass: number | null }> {
  // The source is stored (measure-context.ts) before any pass of its chain is measured.
  await tx.execute(sql`
    insert into chain_fact_ledgers (chain_id, digest, in_source)
    values (${chainId}, ${list.digest}, ${list.inSource})
    on conflict (chain_id) do nothing`);
  const facts = list.facts.map((f, rank) => ({ ...f, rank }));
  await tx.execute(sql`
    insert into chain_facts (chain_id, rank, fact_key, fact, kind, salience)
    select ${chainId}, rank, fact_key, fact, kind, salience
    from unnest(
      ${numberArray(facts, (f) => f.rank)}::int[], ${textArray(facts, (f) => f.key)}::text[],
      ${textArray(facts, (f) => f.fact)}::text[], ${textArray(facts, (f) => f.kind)}::text[],
      ${numberArray(facts, (f) => f.salience)}::float8[]
    ) as f(rank, fact_key, fact, kind, salience)
    on conflict (chain_id, rank) do nothing`);
  const [stored] = await queryRows(
    tx,
    sql`select digest, last_pass from chain_fact_ledgers where chain_id = ${chainId} for update`,
    { digest: col.text, last_pass: col.number.nullable() },
  );
  if (!stored) throw new Error(`the facts ledger of ${JSON.stringify(chainId)} was not stored`);
  return { digest: stored.digest, lastPass: stored.last_pass };
}

/**
 * One pass: the facts it does not state become lost or recoverable (first lost here if never
 * before), and every fact lost or recoverable until now that it states again is restored here.
 * Rows that do not change are not written. (Data-modifying CTEs run whether or not the main
 * statement reads them, and the two touch disjoint rows.)
 */
async function foldPass(tx: Executor, pass: LedgerPass): Promise<void> {
  const { states, hashes } = pass.facts;
  const unstated: { rank: number; hash: string | null }[] = [];
  for (let rank = 0; rank < states.length; rank++) {
    const s = states[rank] as number;
    if (s === LOST) unstated.push({ rank, hash: null });
    else if (s >= RECOVERABLE) unstated.push({ rank, hash: hashes[s - RECOVERABLE] ?? null });
  }
  const p = pass.passNumber;
  await tx.execute(sql`
    with s as (
      select * from unnest(${numberArray(unstated, (u) => u.rank)}::int[], ${textArray(unstated, (u) => u.hash)}::text[])
        as s(rank, hash)
    ),
    gone as (
      update chain_facts f set
        fate = case when s.hash is null then 'lost' else 'recoverable' end,
        first_lost_pass = coalesce(f.first_lost_pass, ${p}::bigint),
        recoverable_from = s.hash
      from s
      where f.chain_id = ${pass.chainId} and f.rank = s.rank
        and (f.fate not in ('lost', 'recoverable') or f.recoverable_from is distinct from s.hash)
    ),
    back as (
      update chain_facts f set fate = 'restored', restored_at_pass = ${p}::bigint, recoverable_from = null
      where f.chain_id = ${pass.chainId} and f.fate in ('lost', 'recoverable')
        and not exists (select 1 from s where s.rank = f.rank)
    )
    update chain_fact_ledgers set last_pass = ${p}::bigint, passes_folded = passes_folded + 1, updated_at = now()
    where chain_id = ${pass.chainId}`);
}
