import { type SQL, sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, doublePrecision, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";

type OutcomeColumns = Record<
  | "continuedAfterHaltCount"
  | "restoreNotHonouredCount"
  | "unansweredFloorPassNumber"
  | "lastPassNumber"
  | "floorAnswered"
  | "hasFloorBreach"
  | "hasCollapseImminent"
  | "mismatchCount"
  | "checkedMismatchCount"
  | "measurementMismatchCount"
  | "integrityCount"
  | "markerFindingCount",
  AnyPgColumn
>;

/**
 * What a chain's guard and agent came to (docs/ingest.md#chain-statuses), as conditions over
 * its summary row: written once here, for the status filters (db/queries/chains.ts), their
 * partial indexes and the chains list's default order below, which must match exactly.
 * - `collapsed`: content went past a floor: a pass after a halt, a restore not honoured, or
 *   a pass numbered above a floor pass that no boundary answers.
 * - `guarded`: the guard reached a floor, a boundary at that pass answered it, and nothing
 *   went past a floor.
 * - `urgency`: 2 collapsed, 1 any other problem (a floor reached that no boundary answers,
 *   mismatches, integrity findings, canary loss among them, marker findings), 0 otherwise: the
 *   chains list shows chains that need attention first.
 */
export function chainOutcome(t: OutcomeColumns): { collapsed: SQL; guarded: SQL; urgency: SQL } {
  const passedFloor = sql`coalesce(${t.unansweredFloorPassNumber} < ${t.lastPassNumber}, false)`;
  const collapsed = sql`(${t.continuedAfterHaltCount} > 0 or ${t.restoreNotHonouredCount} > 0 or ${passedFloor})`;
  const guarded = sql`(${t.floorAnswered} and ${t.continuedAfterHaltCount} = 0 and ${t.restoreNotHonouredCount} = 0 and not ${passedFloor})`;
  const problem = sql`(${t.mismatchCount} > 0 or ${t.checkedMismatchCount} > 0 or ${t.measurementMismatchCount} > 0 or ${t.integrityCount} > 0 or ${t.markerFindingCount} > 0 or ((${t.hasFloorBreach} or ${t.hasCollapseImminent}) and not ${t.floorAnswered}))`;
  const urgency = sql`(case when ${collapsed} then 2 when ${problem} then 1 else 0 end)`;
  return { collapsed, guarded, urgency };
}

/**
 * A summary row per chain, kept from `passes` and `boundaries` by their writers (the
 * summariser folds stored passes in, db/ingest/summaries.ts), so that listing and filtering
 * 100,000 chains never aggregates passes.
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
    /** When the collapse pass was created: the overview counts and lists collapses by it. */
    collapseAt: timestampMs("collapse_at"),
    hasFloorBreach: boolean("has_floor_breach").notNull(),
    hasCollapseImminent: boolean("has_collapse_imminent").notNull(),
    mismatchCount: integer("mismatch_count").notNull(),
    /** Passes whose content contradicts the client's claims (server-side content checks). */
    checkedMismatchCount: integer("checked_mismatch_count").notNull().default(0),
    /** Passes whose measured values change the guard's verdict on the client's claims. */
    measurementMismatchCount: integer("measurement_mismatch_count").notNull().default(0),
    /** The OpenTelemetry resource's `service.name` of the first receipt that named one. */
    serviceName: text("service_name"),
    integrityCount: integer("integrity_count").notNull(),
    /** Of `integrity_count`: passes that continued after the halt point, and restores not honoured. */
    continuedAfterHaltCount: integer("continued_after_halt_count").notNull().default(0),
    restoreNotHonouredCount: integer("restore_not_honoured_count").notNull().default(0),
    /**
     * Of `integrity_count`: the chain's `canary_lost` findings (lib/canaries/survival.ts), judged
     * by the summariser when it folds passes that report on canaries (docs/canaries.md).
     */
    canaryFindingCount: integer("canary_finding_count").notNull().default(0),
    /** Marker integrity findings of the chain's passes (table marker_findings, docs/markers.md); not in `integrity_count`. */
    markerFindingCount: integer("marker_finding_count").notNull().default(0),
    /** The halt point (lib/chains/integrity.ts `integrityContext`); null while the chain never halted. */
    haltPassNumber: safeBigint("halt_pass_number"),
    /**
     * The lowest pass number of a floor pass (effective verdict FLOOR_BREACH_DETECTED or
     * COLLAPSE_IMMINENT) that no boundary at its pass number answers: a pass numbered above it
     * went past the floor (`chainOutcome`). Null while every floor pass is answered.
     */
    unansweredFloorPassNumber: safeBigint("unanswered_floor_pass_number"),
    /** Whether a boundary answers some floor pass (a boundary at its pass number): the agent obeyed the guard there. */
    floorAnswered: boolean("floor_answered").notNull().default(false),
    /** The lowest density the receipts claim. */
    minDensity: doublePrecision("min_density"),
    /** The lowest density the server measured (docs/measurement.md); null while no pass was measured. */
    minMeasuredDensity: doublePrecision("min_measured_density"),
    minSizeBytes: safeBigint("min_size_bytes"),
    firstSeenAt: timestampMs("first_seen_at").notNull(),
    lastActivityAt: timestampMs("last_activity_at").notNull(),
  },
  (t) => {
    const outcome = chainOutcome(t);
    return [
      index("chains_last_activity_idx").on(t.lastActivityAt, t.chainId),
      index("chains_class_activity_idx").on(t.contentClass, t.lastActivityAt, t.chainId),
      // One per sort of the chains list; the expressions must match SORT_KEYS in
      // db/queries/chains.ts exactly, or keyset pages fall back to sorting every chain.
      index("chains_pass_count_idx").on(t.passCount, t.chainId),
      index("chains_min_density_idx").on(sql`coalesce(${t.minDensity}, 2)`, t.chainId),
      index("chains_min_measured_density_idx").on(sql`coalesce(${t.minMeasuredDensity}, 2)`, t.chainId),
      index("chains_min_size_idx").on(sql`coalesce(${t.minSizeBytes}, 9007199254740991)`, t.chainId),
      // The overview groups chains by when they started.
      index("chains_first_seen_idx").on(t.firstSeenAt),
      index("chains_service_activity_idx").on(t.serviceName, t.lastActivityAt, t.chainId),
      // The overview's latest collapses and the range's boundary hour of collapses.
      index("chains_collapse_at_idx").on(t.collapseAt, t.chainId).where(sql`${t.collapseAt} is not null`),
      // One per status filter of the chains list, in its default order; the predicates must
      // match STATUS_FILTER in db/queries/chains.ts exactly, or the planner cannot use them.
      index("chains_healthy_idx")
        .on(t.lastActivityAt, t.chainId)
        .where(
          sql`not ${t.hasFloorBreach} and not ${t.hasCollapseImminent} and ${t.mismatchCount} = 0 and ${t.checkedMismatchCount} = 0 and ${t.measurementMismatchCount} = 0 and ${t.integrityCount} = 0`,
        ),
      index("chains_collapsed_idx").on(t.lastActivityAt, t.chainId).where(outcome.collapsed),
      index("chains_guarded_idx").on(t.lastActivityAt, t.chainId).where(outcome.guarded),
      // The chains list's default order (sort `attention`, db/queries/chains.ts SORT_KEYS).
      index("chains_attention_idx").on(outcome.urgency, t.lastActivityAt, t.chainId),
      index("chains_imminent_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.hasCollapseImminent}`),
      index("chains_breached_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.hasFloorBreach}`),
      index("chains_mismatch_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.mismatchCount} > 0`),
      index("chains_checked_mismatch_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.checkedMismatchCount} > 0`),
      index("chains_measurement_mismatch_idx")
        .on(t.lastActivityAt, t.chainId)
        .where(sql`${t.measurementMismatchCount} > 0`),
      index("chains_integrity_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.integrityCount} > 0`),
      index("chains_continued_after_halt_idx")
        .on(t.lastActivityAt, t.chainId)
        .where(sql`${t.continuedAfterHaltCount} > 0`),
      index("chains_restore_not_honoured_idx")
        .on(t.lastActivityAt, t.chainId)
        .where(sql`${t.restoreNotHonouredCount} > 0`),
      index("chains_canary_lost_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.canaryFindingCount} > 0`),
      index("chains_marker_finding_idx").on(t.lastActivityAt, t.chainId).where(sql`${t.markerFindingCount} > 0`),
      // Substring search of chain ids (`q`, matched as lower(chain_id) like lower(pattern)); needs
      // the pg_trgm extension (created by the migration). On lower(chain_id), not chain_id: on the
      // bare column the planner also used it for `chain_id = ...` lookups, at tens of ms each
      // behind a GIN pending list, instead of the primary key.
      index("chains_chain_id_trgm_idx").using("gin", sql`lower(${t.chainId}) gin_trgm_ops`),
    ];
  },
);
