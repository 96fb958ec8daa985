// The facts ledger at ingest (docs/facts.md): each pass measured against its chain's source is
// folded into the chain's ledger, in pass order, from the states the measurement pool's worker
// gave for each listed fact (lib/measure/fact-ledger.ts). A chain's ledger is made from the list
// the first such pass brings; every later pass sends only the facts it does not state, and a
// batch's passes are folded together (a few statements per batch). Long because making, folding
// and deleting ledgers share their locks and their row shapes, and read best side by side.
import "server-only";
import { sql } from "drizzle-orm";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { booleanArray, numberArray, textArray } from "./pg-arrays";
import { type FactStates, LOST, RECOVERABLE, RETAINED, type SourceFacts } from "@/lib/measure/fact-ledger";

type SourceFact = SourceFacts["facts"][number];

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
 * The passes to fold are then folded all at once (foldRuns): a few statements per batch, not
 * one per pass.
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
  const { made, fresh } = await makeLedgers(tx, sorted, ledgers);
  // Per chain, the passes to fold, in pass order, since its ledger was last made.
  const runs = new Map<string, LedgerPass[]>();
  for (const pass of sorted) {
    let ledger = ledgers.get(pass.chainId);
    if (made.has(pass)) {
      // makeLedgers did for it what the lines below would have.
      if (!ledger || ledger.digest !== pass.facts.digest) continue;
    } else if (ledger && ledger.digest !== pass.facts.digest) {
      // Its facts go with it, and what this batch would have folded in.
      await deleteLedgers(tx, [pass.chainId]);
      ledgers.delete(pass.chainId);
      runs.delete(pass.chainId);
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
    const run = runs.get(pass.chainId);
    if (run) run.push(pass);
    else runs.set(pass.chainId, [pass]);
    ledger.lastPass = pass.passNumber;
  }
  // A ledger made here whose run starts at the pass that made it (it was not dropped since):
  // its facts are written once, folded, rather than written and then folded.
  const freshLists = new Map<string, SourceFacts>();
  for (const [pass, list] of fresh) if (runs.get(pass.chainId)?.[0] === pass) freshLists.set(pass.chainId, list);
  await foldRuns(tx, [...runs.values()], freshLists);
}

/**
 * The ledgers each chain's first pass makes, made together: for a chain whose ledger is missing
 * or of another list (dropped first), from the list its first pass brought, by storeLedgers as
 * createLedger makes one (`ledgers` updated with them as stored). Answers the passes whose ledger it made (the rest,
 * a first pass without its list, go through foldFactLedgers' own steps), and among them those
 * whose ledger row this batch inserted: their fact rows are left to foldRuns, which writes them
 * folded. A ledger another batch made meanwhile keeps its rows.
 */
async function makeLedgers(
  tx: Executor,
  sorted: readonly LedgerPass[],
  ledgers: Map<string, { digest: string; lastPass: number | null }>,
): Promise<{ made: Set<LedgerPass>; fresh: Map<LedgerPass, SourceFacts> }> {
  const firsts: LedgerPass[] = [];
  for (const [i, pass] of sorted.entries()) {
    if (i > 0 && (sorted[i - 1] as LedgerPass).chainId === pass.chainId) continue;
    const list = pass.facts.list;
    if (ledgers.get(pass.chainId)?.digest === pass.facts.digest || !list || list.digest !== pass.facts.digest) continue;
    firsts.push(pass);
  }
  if (firsts.length === 0) return { made: new Set(), fresh: new Map() };
  const stale = firsts.filter((p) => ledgers.has(p.chainId)).map((p) => p.chainId);
  if (stale.length > 0) await deleteLedgers(tx, stale);
  const lists = firsts.map((p) => ({ chainId: p.chainId, list: p.facts.list as SourceFacts }));
  const { stored, created } = await storeLedgers(tx, lists, "leave-new-facts");
  for (const [chainId, ledger] of stored) ledgers.set(chainId, ledger);
  const fresh = new Map(
    firsts.flatMap((p) => (created.has(p.chainId) ? [[p, p.facts.list as SourceFacts] as const] : [])),
  );
  return { made: new Set(firsts), fresh };
}

/** Deletes the chains' ledgers with their facts, which have no foreign key to them (migration 0027). */
async function deleteLedgers(tx: Executor, chainIds: readonly string[]): Promise<void> {
  await tx.execute(sql`
    with ledgers as (delete from chain_fact_ledgers where chain_id in ${chainIds})
    delete from chain_facts where chain_id in ${chainIds}`);
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
  const { stored } = await storeLedgers(tx, [{ chainId, list }], "write-all-facts");
  return stored.get(chainId) as { digest: string; lastPass: number | null };
}

/**
 * Makes the chains' ledgers from their lists in three statements however many they are (the
 * sources are stored, measure-context.ts, before any pass of their chains is measured), and
 * answers each ledger as stored, locked, and the chains whose ledger row this call inserted. A
 * ledger another batch made first (its insert waits for that one's commit) keeps its rows. With
 * "leave-new-facts" the fact rows of the ledgers inserted here are left to the caller (foldRuns
 * writes them folded); the facts of the others are written as with "write-all-facts".
 */
async function storeLedgers(
  tx: Executor,
  lists: readonly { chainId: string; list: SourceFacts }[],
  facts: "write-all-facts" | "leave-new-facts",
): Promise<{ stored: Map<string, { digest: string; lastPass: number | null }>; created: Set<string> }> {
  const inserted = await queryRows(
    tx,
    sql`
    insert into chain_fact_ledgers (chain_id, digest, in_source)
    select * from unnest(${textArray(lists, (l) => l.chainId)}::text[], ${textArray(lists, (l) => l.list.digest)}::text[],
      ${numberArray(lists, (l) => l.list.inSource)}::int[])
    on conflict (chain_id) do nothing
    returning chain_id`,
    { chain_id: col.text },
  );
  const created = new Set(inserted.map((l) => l.chain_id));
  const rows = lists
    .filter((l) => facts === "write-all-facts" || !created.has(l.chainId))
    .flatMap(({ chainId, list }) =>
      list.facts.map(({ key, fact, kind, salience }, rank) => ({ key, fact, kind, salience, chainId, rank })),
    );
  if (rows.length > 0)
    await tx.execute(sql`
    insert into chain_facts (chain_id, rank, fact_key, fact, kind, salience)
    select * from unnest(
      ${textArray(rows, (f) => f.chainId)}::text[], ${numberArray(rows, (f) => f.rank)}::int[],
      ${textArray(rows, (f) => f.key)}::text[], ${textArray(rows, (f) => f.fact)}::text[],
      ${textArray(rows, (f) => f.kind)}::text[], ${numberArray(rows, (f) => f.salience)}::float8[]
    )
    on conflict (chain_id, rank) do nothing`);
  const chains = lists.map((l) => l.chainId);
  const stored = await queryRows(
    tx,
    sql`select chain_id, digest, last_pass from chain_fact_ledgers
        where chain_id in ${chains} order by chain_id for update`,
    { chain_id: col.text, digest: col.text, last_pass: col.number.nullable() },
  );
  const found = new Set(stored.map((l) => l.chain_id));
  const missing = chains.find((c) => !found.has(c));
  if (missing !== undefined) throw new Error(`the facts ledger of ${JSON.stringify(missing)} was not stored`);
  return {
    stored: new Map(stored.map((l) => [l.chain_id, { digest: l.digest, lastPass: l.last_pass }])),
    created,
  };
}

/**
 * What a run of passes does to one fact, as the passes one by one would (each pass: a fact it
 * does not state becomes lost or recoverable, first lost there if never before; a fact lost or
 * recoverable until then that it states again is restored there), for the fact's fate before
 * the run lost or recoverable (`ifLost`) and otherwise (`ifKept`). Null where a field is left
 * as it was.
 */
interface FactOutcome {
  fate: string | null;
  restoredAt: number | null;
  /** Whether recoverable_from is set (to `from`, maybe null) or left as it was. */
  setFrom: boolean;
  from: string | null;
}

const NO_CHANGE: FactOutcome = { fate: null, restoredAt: null, setFrom: false, from: null };

function outcomeOf(run: readonly LedgerPass[], rank: number, lostBefore: boolean): FactOutcome {
  const out: FactOutcome = { fate: null, restoredAt: null, setFrom: false, from: null };
  let lost = lostBefore;
  for (const pass of run) {
    const s = pass.facts.states[rank] as number;
    if (s === LOST || s >= RECOVERABLE) {
      out.fate = s === LOST ? "lost" : "recoverable";
      out.setFrom = true;
      out.from = s === LOST ? null : (pass.facts.hashes[s - RECOVERABLE] ?? null);
      lost = true;
    } else if (lost) {
      out.fate = "restored";
      out.restoredAt = pass.passNumber;
      out.setFrom = true;
      out.from = null;
      lost = false;
    }
  }
  return out;
}

/**
 * Folds each chain's run of passes into its ledger in four statements for the whole batch.
 * A fact some pass of its run does not state is written once, with what the run does to it
 * (outcomeOf, both ways: whether it was lost before the run is read in the statement), and one
 * no pass states nor finds recoverable is made lost unless it is already; a fact every pass
 * of the run states is restored at the run's first pass if it was lost or recoverable, and left
 * alone otherwise. Rows that do not change are not written, and the two last kinds, most of a
 * chain's facts, are sought by rank among the facts of the chain's other fates (the fate index),
 * not one by one. The same rows as folding the passes one by one.
 */
async function foldRuns(
  tx: Executor,
  runs: readonly (readonly LedgerPass[])[],
  freshLists: ReadonlyMap<string, SourceFacts>,
): Promise<void> {
  if (runs.length === 0) return;
  const unstated: {
    chainId: string;
    rank: number;
    firstLost: number;
    ifLost: FactOutcome;
    ifKept: FactOutcome;
  }[] = [];
  // Facts no pass of the run states nor finds recoverable: outcomeOf makes them lost either way.
  const lostThroughout: { chainId: string; rank: number }[] = [];
  // Facts every pass of the run states.
  const statedThroughout: { chainId: string; rank: number }[] = [];
  // The fact rows of ledgers made in this batch, as the statements below would leave them.
  const freshRows: (SourceFact & { chainId: string; rank: number; outcome: FactOutcome; firstLost: number | null })[] =
    [];
  for (const run of runs) {
    const first = run[0] as LedgerPass;
    const facts = first.facts.states.length;
    const list = freshLists.get(first.chainId);
    for (let rank = 0; rank < facts; rank++) {
      let firstLost = -1;
      for (const pass of run) {
        if (pass.facts.states[rank] !== RETAINED) {
          firstLost = pass.passNumber;
          break;
        }
      }
      if (list) {
        // Nothing was lost before the run: what outcomeOf says of it then, over retained.
        const outcome = firstLost < 0 ? NO_CHANGE : outcomeOf(run, rank, false);
        const { key, fact, kind, salience } = list.facts[rank] as SourceFact;
        // Field by field: rows spread from the list's facts took V8 some fifty times longer to
        // make and then to read (about 6 ms a thousand rows), most of a new ledger's time here.
        freshRows.push({
          key,
          fact,
          kind,
          salience,
          chainId: first.chainId,
          rank,
          outcome,
          firstLost: firstLost < 0 ? null : firstLost,
        });
        continue;
      }
      if (firstLost < 0) {
        statedThroughout.push({ chainId: first.chainId, rank });
        continue;
      }
      if (run.every((pass) => pass.facts.states[rank] === LOST)) {
        lostThroughout.push({ chainId: first.chainId, rank });
        continue;
      }
      unstated.push({
        chainId: first.chainId,
        rank,
        firstLost,
        ifLost: outcomeOf(run, rank, true),
        ifKept: outcomeOf(run, rank, false),
      });
    }
  }
  if (freshRows.length > 0)
    await tx.execute(sql`
      insert into chain_facts (chain_id, rank, fact_key, fact, kind, salience, fate, first_lost_pass, restored_at_pass,
        recoverable_from)
      select * from unnest(
        ${textArray(freshRows, (f) => f.chainId)}::text[], ${numberArray(freshRows, (f) => f.rank)}::int[],
        ${textArray(freshRows, (f) => f.key)}::text[], ${textArray(freshRows, (f) => f.fact)}::text[],
        ${textArray(freshRows, (f) => f.kind)}::text[], ${numberArray(freshRows, (f) => f.salience)}::float8[],
        ${textArray(freshRows, (f) => f.outcome.fate ?? "retained")}::text[], ${numberArray(freshRows, (f) => f.firstLost)}::bigint[],
        ${numberArray(freshRows, (f) => f.outcome.restoredAt)}::bigint[],
        ${textArray(freshRows, (f) => (f.outcome.setFrom ? f.outcome.from : null))}::text[]
      )`);
  if (unstated.length > 0) {
    await tx.execute(sql`
      with s as (
        select * from unnest(
          ${textArray(unstated, (u) => u.chainId)}::text[], ${numberArray(unstated, (u) => u.rank)}::int[],
          ${numberArray(unstated, (u) => u.firstLost)}::bigint[],
          ${textArray(unstated, (u) => u.ifLost.fate)}::text[], ${numberArray(unstated, (u) => u.ifLost.restoredAt)}::bigint[],
          ${booleanArray(unstated, (u) => u.ifLost.setFrom)}::boolean[], ${textArray(unstated, (u) => u.ifLost.from)}::text[],
          ${textArray(unstated, (u) => u.ifKept.fate)}::text[], ${numberArray(unstated, (u) => u.ifKept.restoredAt)}::bigint[],
          ${booleanArray(unstated, (u) => u.ifKept.setFrom)}::boolean[], ${textArray(unstated, (u) => u.ifKept.from)}::text[]
        ) as s(chain_id, rank, first_lost, lost_fate, lost_restored, lost_set_from, lost_from,
               kept_fate, kept_restored, kept_set_from, kept_from)
      ),
      next as (
        select f.chain_id, f.rank,
          coalesce(case when l.lost then s.lost_fate else s.kept_fate end, f.fate) as fate,
          coalesce(f.first_lost_pass, s.first_lost) as first_lost_pass,
          coalesce(case when l.lost then s.lost_restored else s.kept_restored end, f.restored_at_pass) as restored_at_pass,
          case when (case when l.lost then s.lost_set_from else s.kept_set_from end)
            then (case when l.lost then s.lost_from else s.kept_from end)
            else f.recoverable_from end as recoverable_from,
          f.fate as old_fate, f.first_lost_pass as old_first_lost, f.restored_at_pass as old_restored,
          f.recoverable_from as old_from
        from s
        join chain_facts f on f.chain_id = s.chain_id and f.rank = s.rank
        cross join lateral (select f.fate in ('lost', 'recoverable') as lost) l
      )
      update chain_facts f set
        fate = next.fate, first_lost_pass = next.first_lost_pass,
        restored_at_pass = next.restored_at_pass, recoverable_from = next.recoverable_from
      from next
      where f.chain_id = next.chain_id and f.rank = next.rank
        and (next.fate, next.first_lost_pass, next.restored_at_pass, next.recoverable_from)
          is distinct from (next.old_fate, next.old_first_lost, next.old_restored, next.old_from)`);
  }
  const chains = runs.map((run) => ({
    chainId: (run[0] as LedgerPass).chainId,
    first: (run[0] as LedgerPass).passNumber,
    last: (run[run.length - 1] as LedgerPass).passNumber,
    count: run.length,
  }));
  // A fact lost throughout its run: lost, first lost at the run's first pass unless before, no
  // original to recover it from. Only a fact not lost already changes (a lost fact always has
  // its first loss and no original: only this fold writes them), so the statement reads those
  // through the fate index, not every fact the run loses; most are lost long since.
  if (lostThroughout.length > 0) {
    const lost = withRanks(chains, lostThroughout);
    await tx.execute(sql`
      update chain_facts f set fate = 'lost', first_lost_pass = coalesce(f.first_lost_pass, c.first_pass),
        recoverable_from = null
      from unnest(${textArray(lost, (c) => c.chainId)}::text[], ${numberArray(lost, (c) => c.first)}::bigint[],
        ${textArray(lost, (c) => c.ranks)}::text[]) as c(chain_id, first_pass, ranks)
      where f.chain_id = c.chain_id and f.fate in ('retained', 'restored', 'recoverable')
        and f.rank = any(c.ranks::int[])`);
  }
  // A fact every pass of its chain's run states: restored at the run's first pass if it was
  // lost or recoverable.
  if (statedThroughout.length > 0) {
    const stated = withRanks(chains, statedThroughout);
    await tx.execute(sql`
      update chain_facts f set fate = 'restored', restored_at_pass = c.first_pass, recoverable_from = null
      from unnest(${textArray(stated, (c) => c.chainId)}::text[], ${numberArray(stated, (c) => c.first)}::bigint[],
        ${textArray(stated, (c) => c.ranks)}::text[]) as c(chain_id, first_pass, ranks)
      where f.chain_id = c.chain_id and f.fate in ('lost', 'recoverable') and f.rank = any(c.ranks::int[])`);
  }
  await tx.execute(sql`
    update chain_fact_ledgers l set last_pass = c.last_pass, passes_folded = l.passes_folded + c.count,
      updated_at = now()
    from unnest(${textArray(chains, (c) => c.chainId)}::text[], ${numberArray(chains, (c) => c.last)}::bigint[],
      ${numberArray(chains, (c) => c.count)}::int[]) as c(chain_id, last_pass, count)
    where l.chain_id = c.chain_id`);
}

/** The chains that have facts among `facts`, each with their ranks as an int[] literal. */
function withRanks<C extends { chainId: string }>(
  chains: readonly C[],
  facts: readonly { chainId: string; rank: number }[],
): (C & { ranks: string })[] {
  const ranksOf = new Map<string, number[]>();
  for (const { chainId, rank } of facts) {
    const ranks = ranksOf.get(chainId);
    if (ranks) ranks.push(rank);
    else ranksOf.set(chainId, [rank]);
  }
  return chains.flatMap((c) => {
    const ranks = ranksOf.get(c.chainId);
    return ranks ? [{ ...c, ranks: `{${ranks.join(",")}}` }] : [];
  });
}
