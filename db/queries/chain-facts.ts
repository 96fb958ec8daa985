// A chain's facts ledger (docs/facts.md), as the facts route and the chain page's Facts tab read
// it: keyset pages by rank (the fate index when filtered), the counts by fate, and the "facts
// surviving" line from the measurements stored with the passes.
import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { keysetDirection, type KeysetPage, keysetPage } from "../keyset";
import { col, queryRows, type RowOf } from "../sql";
import type { Executor } from "../types";
import { type FactPoint, factPoints } from "@/lib/facts/series";
import { type ChainFact, FACT_FATES, type FactFate } from "@/lib/schemas/facts";

export interface FactLedgerSummary {
  /** The source's specific facts, all of them; the ledger keeps at most MAX_LEDGER_FACTS. */
  in_source: number;
  kept: number;
  passes_folded: number;
  last_pass: number | null;
  counts: Record<FactFate, number>;
}

/** The chain's ledger in numbers; null when it has none (no pass was measured against a source). */
export async function getFactLedger(chainId: string, executor?: Executor): Promise<FactLedgerSummary | null> {
  const db = executor ?? (await getReadDb());
  const [ledger, counts] = await Promise.all([
    queryRows(db, sql`select in_source, passes_folded, last_pass from chain_fact_ledgers where chain_id = ${chainId}`, {
      in_source: col.int,
      passes_folded: col.int,
      last_pass: col.number.nullable(),
    }),
    queryRows(db, sql`select fate, count(*) as n from chain_facts where chain_id = ${chainId} group by fate`, {
      fate: col.oneOf(FACT_FATES),
      n: col.int,
    }),
  ]);
  const row = ledger[0];
  if (!row) return null;
  const byFate = Object.fromEntries(FACT_FATES.map((f) => [f, 0])) as Record<FactFate, number>;
  for (const c of counts) byFate[c.fate] = c.n;
  return { ...row, kept: counts.reduce((n, c) => n + c.n, 0), counts: byFate };
}

const FACT_ROW = {
  rank: col.int,
  fact: col.text,
  kind: col.text,
  salience: col.number,
  fate: col.oneOf(FACT_FATES),
  first_lost_pass: col.number.nullable(),
  restored_at_pass: col.number.nullable(),
  recoverable_from: col.text.nullable(),
};

export interface FactListQuery {
  fate?: FactFate;
  /** A piece of the fact's text, any case. */
  q?: string;
  limit: number;
  after?: number;
  before?: number;
}

/** One page of the chain's facts in ledger order (salience first), keyset-paged by rank (which the wire leaves out). */
export async function listChainFacts(
  chainId: string,
  query: FactListQuery,
  executor?: Executor,
): Promise<KeysetPage<ChainFact & { rank: number }, number>> {
  const db = executor ?? (await getReadDb());
  const fate = query.fate === undefined ? sql`` : sql`and fate = ${query.fate}`;
  const q = query.q === undefined ? sql`` : sql`and strpos(lower(fact), lower(${query.q})) > 0`;
  return keysetPage<RowOf<typeof FACT_ROW>, number>({
    limit: query.limit,
    after: query.after,
    before: query.before,
    keyOf: (row) => row.rank,
    neighbours: "check",
    restartWhenShort: true,
    read: (from, forward, limit) => {
      const { op, asc } = keysetDirection(false, forward);
      const position = from === undefined ? sql`` : sql`and rank ${op} ${from}`;
      return queryRows(
        db,
        sql`select rank, fact, kind, salience, fate, first_lost_pass, restored_at_pass, recoverable_from
            from chain_facts where chain_id = ${chainId} ${fate} ${q} ${position}
            order by rank ${sql.raw(asc ? "asc" : "desc")} limit ${limit}`,
        FACT_ROW,
      );
    },
  });
}

/**
 * The chain chart's facts line, for a chain with a ledger: each pass whose stored measurement
 * counted facts, downsampled.
 */
export async function getFactSeries(chainId: string, executor?: Executor): Promise<FactPoint[]> {
  const db = executor ?? (await getReadDb());
  const rows = await queryRows(
    db,
    sql`select pass_id, pass_number,
          (server_checks->'facts'->>'retained')::int as retained,
          (server_checks->'facts'->>'recoverable')::int as recoverable,
          (server_checks->'facts'->>'in_source')::int as in_source
        from passes
        where chain_id = ${chainId}
          -- Read once: a chain without a ledger (none of its passes measured against a source
          -- since the ledger exists) draws no line, and its passes, however many, are not read.
          and exists (select 1 from chain_fact_ledgers where chain_id = ${chainId})
          and measured_density is not null and jsonb_typeof(server_checks->'facts') = 'object'
        order by pass_number, id`,
    { pass_id: col.text, pass_number: col.number, retained: col.int, recoverable: col.int, in_source: col.int },
  );
  return factPoints(rows);
}
