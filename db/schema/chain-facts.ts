import { doublePrecision, foreignKey, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";
import { chainSources } from "./chain-sources";
import type { FactFate } from "@/lib/schemas/facts";

/**
 * A chain's facts ledger (docs/facts.md): which facts of its source it keeps (their digest, so
 * passes measured under another list are not folded into it), and how far its passes are
 * folded. Made at ingest by the first pass measured against the chain's source; it goes with
 * the source (and so with the chain).
 */
export const chainFactLedgers = pgTable(
  "chain_fact_ledgers",
  {
    chainId: text("chain_id").primaryKey(),
    /** Digest of the listed facts' identities, in order (lib/measure/fact-ledger.ts). */
    digest: text("digest").notNull(),
    /** The source's specific facts, all of them; the ledger keeps the heaviest, at most a cap. */
    inSource: integer("in_source").notNull(),
    /** The pass number of the latest pass folded; null before the first. */
    lastPass: safeBigint("last_pass"),
    passesFolded: integer("passes_folded").notNull().default(0),
    updatedAt: timestampMs("updated_at").notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "chain_fact_ledgers_source_fkey",
      columns: [t.chainId],
      foreignColumns: [chainSources.chainId],
    }).onDelete("cascade"),
  ],
);

/**
 * One fact of a chain's ledger, by its rank (salience first, then the source's order): where
 * it was first lost, the pass that last brought it back, the original a marker names that
 * states it while the latest pass does not, and its fate at that pass.
 */
export const chainFacts = pgTable(
  "chain_facts",
  {
    chainId: text("chain_id").notNull(),
    rank: integer("rank").notNull(),
    /** The fact's identity, hashed (16 hex). */
    factKey: text("fact_key").notNull(),
    fact: text("fact").notNull(),
    kind: text("kind").notNull(),
    salience: doublePrecision("salience").notNull(),
    fate: text("fate").$type<FactFate>().notNull().default("retained"),
    firstLostPass: safeBigint("first_lost_pass"),
    restoredAtPass: safeBigint("restored_at_pass"),
    /** The key of the marker whose original states the fact, while it is recoverable. */
    recoverableFrom: text("recoverable_from"),
  },
  (t) => [
    primaryKey({ name: "chain_facts_pkey", columns: [t.chainId, t.rank] }),
    // A page filtered by fate reads its keyset from here; the fold's restores too.
    index("chain_facts_fate_idx").on(t.chainId, t.fate, t.rank),
    // No foreign key to the ledger: checking it cost about as much as writing a new ledger's
    // rows at ingest. Whatever deletes a ledger (the fold, retention with the chain's source)
    // deletes its facts in the same statement.
  ],
);
