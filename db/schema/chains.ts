import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";

/**
 * A summary row per chain, recomputed from `passes` and `boundaries` in the same transaction
 * as every write, so that listing and filtering 100,000 chains never aggregates passes.
 */
export const chains = pgTable(
  "chains",
  {
    chainId: text("chain_id").primaryKey(),
    contentClass: text("content_class").notNull(),
    passCount: integer("pass_count").notNull(),
    boundaryCount: integer("boundary_count").notNull(),
    lastPassId: text("last_pass_id"),
    lastPassNumber: safeBigint("last_pass_number"),
    lastVerdict: text("last_verdict"),
    collapsePassId: text("collapse_pass_id"),
    collapsePassNumber: safeBigint("collapse_pass_number"),
    collapseVerdict: text("collapse_verdict"),
    hasFloorBreach: boolean("has_floor_breach").notNull(),
    hasCollapseImminent: boolean("has_collapse_imminent").notNull(),
    mismatchCount: integer("mismatch_count").notNull(),
    integrityCount: integer("integrity_count").notNull(),
    /** Of `integrity_count`: passes that continued after the halt point, and restores not honoured. */
    continuedAfterHaltCount: integer("continued_after_halt_count").notNull().default(0),
    restoreNotHonouredCount: integer("restore_not_honoured_count").notNull().default(0),
    /** The halt point (lib/chains/integrity.ts `integrityContext`); null while the chain never halted. */
    haltPassNumber: safeBigint("halt_pass_number"),
    minDensity: doublePrecision("min_density"),
    minSizeBytes: safeBigint("min_size_bytes"),
    firstSeenAt: timestampMs("first_seen_at").notNull(),
    lastActivityAt: timestampMs("last_activity_at").notNull(),
  },
  (t) => [
    index("chains_last_activity_idx").on(t.lastActivityAt, t.chainId),
    index("chains_class_activity_idx").on(t.contentClass, t.lastActivityAt, t.chainId),
    // One per sort of the chains list; the expressions must match SORT_KEYS in
    // db/queries/chains.ts exactly, or keyset pages fall back to sorting every chain.
    index("chains_pass_count_idx").on(t.passCount, t.chainId),
    index("chains_min_density_idx").on(sql`coalesce(${t.minDensity}, 2)`, t.chainId),
    index("chains_min_size_idx").on(sql`coalesce(${t.minSizeBytes}, 9007199254740991)`, t.chainId),
    // The overview groups chains by when they started.
    index("chains_first_seen_idx").on(t.firstSeenAt),
  ],
);
