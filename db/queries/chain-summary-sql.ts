// The SQL both writers of the chains' summary rows share: the fold of new passes
// (chain-fold-steps.ts) and the full recompute (chain-summary.ts refreshChainSummaries). Written
// once here so the two cannot drift apart.
import "server-only";
import { sql, type SQL } from "drizzle-orm";

/**
 * Keeps the passes of `alias` that are folded already: not waiting in the summary queue.
 * Every statement sees the queue as committed when it began, and the summariser's own
 * rows as taken, so a recompute never counts a pass that a later fold will add again.
 */
export const folded = (alias: string) => sql.raw(`${alias}.id not in (select unnest(q.pass_ids) from summary_queue q)`);

// The per-chain figures over a set of passes, shared by the fold (over the new passes) and
// the full recompute (over all of a chain's passes) so the two cannot drift apart. A chain's
// collapse and status follow each pass's effective verdict (its own under density_source
// client; the measured one under density_source measured), never the bare `verdict`.
export const PASS_AGGREGATES = sql.raw(`
  count(*)::int as pass_count,
  bool_or(effective_verdict = 'FLOOR_BREACH_DETECTED') as has_breach,
  bool_or(effective_verdict = 'COLLAPSE_IMMINENT') as has_imminent,
  (count(*) filter (where client_mismatch))::int as mismatch_count,
  (count(*) filter (where checked_mismatch))::int as checked_mismatch_count,
  (count(*) filter (where measurement_mismatch))::int as measurement_mismatch_count,
  min(semantic_density_score) as min_density,
  min(measured_density) as min_measured_density,
  min(current_size_bytes) as min_size,
  min(created_at) as first_seen,
  max(greatest(created_at, received_at)) as last_seen`);

/**
 * The lowest pass number among passes aliased `alias` whose directive is a HALT that no
 * `restore` or `accept_loss` boundary at the same pass number answers (lib/chains/integrity.ts).
 */
export const haltPassAggregate = (alias: string) =>
  sql.raw(`min(${alias}.pass_number) filter (where ${alias}.directive like 'HALT%' and not exists (
    select 1 from boundaries hb where hb.chain_id = ${alias}.chain_id and hb.pass_number = ${alias}.pass_number and hb.strategy <> 'halt'))`);

/**
 * Over the floor passes (effective verdict FLOOR_BREACH_DETECTED or COLLAPSE_IMMINENT) among
 * passes aliased `alias`: the lowest pass number that no boundary at its pass number answers,
 * and whether a boundary answers any (db/schema/chains.ts `chainOutcome` reads both).
 */
export const floorAggregates = (alias: string) => {
  const floor = `${alias}.effective_verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')`;
  const answered = `exists (select 1 from boundaries fb where fb.chain_id = ${alias}.chain_id and fb.pass_number = ${alias}.pass_number)`;
  return sql.raw(`min(${alias}.pass_number) filter (where ${floor} and not ${answered}) as unanswered_floor,
  coalesce(bool_or(${floor} and ${answered}), false) as floor_answered`);
};

/**
 * The summary columns both writers of `chains` insert (the fold and the full recompute), in
 * their order: the one list their inserts and updates are written from.
 */
const SUMMARY_COLUMNS = [
  "chain_id",
  "content_class",
  "pass_count",
  "boundary_count",
  "last_pass_id",
  "last_pass_number",
  "last_verdict",
  "collapse_pass_id",
  "collapse_pass_number",
  "collapse_verdict",
  "collapse_at",
  "has_floor_breach",
  "has_collapse_imminent",
  "mismatch_count",
  "checked_mismatch_count",
  "measurement_mismatch_count",
  "integrity_count",
  "continued_after_halt_count",
  "restore_not_honoured_count",
  "halt_pass_number",
  "unanswered_floor_pass_number",
  "floor_answered",
  "min_density",
  "min_measured_density",
  "min_size_bytes",
  "first_seen_at",
  "last_activity_at",
] as const;
type SummaryColumn = (typeof SUMMARY_COLUMNS)[number];

/** The summary columns as a column list (an insert's, or a select's from a relation with those names). */
export const chainSummaryColumns = (): SQL => sql.raw(SUMMARY_COLUMNS.join(", "));

/** `column = <from>.column` for every summary column but `except` (the key, and what the writer leaves as it is). */
export const setSummaryColumns = (from: string, except: readonly SummaryColumn[]): SQL =>
  sql.raw(
    SUMMARY_COLUMNS.filter((c) => !except.includes(c))
      .map((c) => `${c} = ${from}.${c}`)
      .join(",\n      "),
  );

/** The columns of `passes` the fold reads. */
export const FOLDED_PASS_COLUMNS =
  sql.raw(`id, chain_id, pass_id, pass_number, input_content_hash, current_content_hash,
  current_size_bytes, semantic_density_score, measured_density, content_class, verdict, effective_verdict, directive,
  manifest_digest, client_mismatch, client_verdict, client_manifest_digest, checked_mismatch, measurement_mismatch, created_at, received_at`);
