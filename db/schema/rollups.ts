import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./columns";

const count = (name: string) => bigint(name, { mode: "number" }).notNull().default(0);

/**
 * Passes per UTC hour of `created_at` × content class × server verdict, maintained by the
 * summariser as it folds stored passes (db/ingest/summaries.ts), so the overview's pass
 * figures read a few rows per hour of history instead of every pass. Retention never subtracts from it: the
 * history's counts outlive the chains.
 */
// Hourly and daily tables have the same columns beside their time bucket: one definition each.
const passCounts = () => ({
  contentClass: text("content_class").notNull(),
  verdict: text("verdict").notNull(),
  passes: count("passes"),
  clientMismatches: count("client_mismatches"),
});

const chainCounts = () => ({
  contentClass: text("content_class").notNull(),
  activeChains: count("active_chains"),
  integrityFindings: count("integrity_findings"),
  startedChains: count("started_chains"),
  /** Of `started_chains`, those that have collapsed (went past a floor; a guarded chain is not one). */
  startedCollapsed: count("started_collapsed"),
  /** Collapsed chains, in the hour of their collapse point. */
  collapsedChains: count("collapsed_chains"),
  // Of `active_chains`, those with each status the overview counts (the chains list's status
  // filters of the same names, db/queries/chains.ts STATUS_FILTER).
  activeCollapsed: count("active_collapsed"),
  activeFloorBreached: count("active_floor_breached"),
  activeClientMismatch: count("active_client_mismatch"),
  activeBrokenIntegrity: count("active_broken_integrity"),
  activeContinuedAfterHalt: count("active_continued_after_halt"),
  activeRestoreNotHonoured: count("active_restore_not_honoured"),
  activeMeasurementMismatch: count("active_measurement_mismatch"),
  activeGuarded: count("active_guarded"),
});

export const passRollups = pgTable(
  "pass_rollups",
  {
    hour: timestampMs("hour").notNull(),
    ...passCounts(),
  },
  (t) => [primaryKey({ name: "pass_rollups_pkey", columns: [t.hour, t.contentClass, t.verdict] })],
);

/**
 * What each chain contributes to the overview, per UTC hour × content class: a chain counts
 * once as active (with its integrity findings, and once under each overview status it has)
 * in the hour of its last activity, once as
 * started (and, if it has collapsed, as started-and-collapsed) in the hour it was first seen,
 * and once as collapsed in the hour of its collapse pass. Ingest subtracts a chain's old
 * contribution and adds its new one in the same transaction, so the sums stay exact.
 */
export const chainRollups = pgTable(
  "chain_rollups",
  {
    hour: timestampMs("hour").notNull(),
    ...chainCounts(),
  },
  (t) => [primaryKey({ name: "chain_rollups_pkey", columns: [t.hour, t.contentClass] })],
);

/**
 * The same two roll-ups per UTC day, kept beside the hourly ones in the same transaction:
 * a 90-day range sums a few hundred day rows instead of thousands of hour rows.
 */
export const passRollupsDaily = pgTable(
  "pass_rollups_daily",
  {
    day: timestampMs("day").notNull(),
    ...passCounts(),
  },
  (t) => [primaryKey({ name: "pass_rollups_daily_pkey", columns: [t.day, t.contentClass, t.verdict] })],
);

export const chainRollupsDaily = pgTable(
  "chain_rollups_daily",
  {
    day: timestampMs("day").notNull(),
    ...chainCounts(),
  },
  (t) => [primaryKey({ name: "chain_rollups_daily_pkey", columns: [t.day, t.contentClass] })],
);
