// Shapes the passes kept for a chain's chart into serialisable chart props: points, the
// floor of each policy version that judged a stretch of the chain, and the places where
// something happened (integrity findings, client/server mismatches, floor crossings).
import { findIntegrityIssues, type IntegrityContext, type IntegrityKind, NO_CONTEXT } from "./integrity";
import type { IntegrityFinding } from "../schemas/chains";
import { PASS_FLAG } from "./downsample";
import type { Verdict } from "../guard/guard";

/** One kept pass as getChainSeries reads it, with the pass before it in chain order. */
export interface SeriesRow {
  pass_id: string;
  pass_number: number;
  size: number;
  density: number;
  verdict: Verdict;
  directive: string;
  client_verdict: string | null;
  client_mismatch: boolean;
  /** The pass's content contradicts the client's claims (server-side content checks). */
  checked_mismatch: boolean;
  checked_verdict: Verdict | null;
  /** The density the server measured from the pass's content, or null where it could not. */
  measured_density: number | null;
  /** The guard on the measured values disagrees with the guard on the claims. */
  measurement_mismatch: boolean;
  /** The verdict the chain follows (density_source). */
  effective_verdict: Verdict;
  unmeasured: boolean;
  content_class: string;
  policy_version: number;
  floor_size: number;
  floor_density: number;
  max_pass: number;
  flags: number;
  input_content_hash: string | null;
  current_content_hash: string;
  prev_pass_id: string | null;
  prev_pass_number: number | null;
  prev_hash: string | null;
}

/** One point of the chart: the kept pass's own figures, and its integrity finding if any. */
export interface SeriesPoint
  extends Pick<
    SeriesRow,
    | "pass_id"
    | "pass_number"
    | "size"
    | "density"
    | "verdict"
    | "directive"
    | "policy_version"
    | "client_verdict"
    | "client_mismatch"
    | "measured_density"
    | "checked_verdict"
    | "measurement_mismatch"
    | "effective_verdict"
    | "unmeasured"
  > {
  integrity: IntegrityKind | null;
}

/** A stretch of the chain judged by one policy version. */
export interface FloorSpan {
  content_class: string;
  policy_version: number;
  from: number;
  to: number;
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
}

interface Crossing {
  pass_id: string;
  pass_number: number;
  metric: "size" | "density";
  /** "below": this pass fell under its floor; "above": it is back over it. */
  direction: "below" | "above";
}

export interface Mismatch {
  /**
   * `client`: the client's verdict or digest differs; `checked`: its content contradicts its
   * claims; `measurement`: the guard on the measured density disagrees with the guard on the claims.
   */
  kind: "client" | "checked" | "measurement";
  pass_id: string;
  pass_number: number;
  client_verdict: string | null;
  verdict: Verdict;
  checked_verdict: Verdict | null;
}

export interface ChainSeries {
  total_passes: number;
  points: SeriesPoint[];
  floors: FloorSpan[];
  findings: IntegrityFinding[];
  mismatches: Mismatch[];
  crossings: Crossing[];
  /** True when some passes are not drawn. */
  downsampled: boolean;
  /** True when more flagged passes exist than were kept (see DOWNSAMPLE.flaggedCap). */
  flagged_truncated: boolean;
}

function findingFor(row: SeriesRow, context: IntegrityContext): IntegrityFinding | undefined {
  const link = {
    pass_id: row.pass_id,
    pass_number: row.pass_number,
    input_content_hash: row.input_content_hash,
    current_content_hash: row.current_content_hash,
  };
  const links =
    row.prev_pass_id === null || row.prev_pass_number === null
      ? [link]
      : [
          {
            pass_id: row.prev_pass_id,
            pass_number: row.prev_pass_number,
            input_content_hash: null,
            current_content_hash: row.prev_hash ?? "",
          },
          link,
        ];
  return findIntegrityIssues(links, context).find(
    (f) => f.pass_id === row.pass_id && f.pass_number === row.pass_number,
  );
}

/** `rows` in chain order; the first and last pass of the chain are among them. */
export function buildChainSeries(
  rows: readonly SeriesRow[],
  totalPasses: number,
  flaggedTruncated: boolean,
  context: IntegrityContext = NO_CONTEXT,
): ChainSeries {
  const points: SeriesPoint[] = [];
  const floors: FloorSpan[] = [];
  const findings: IntegrityFinding[] = [];
  const mismatches: Mismatch[] = [];
  const crossings: Crossing[] = [];
  for (const row of rows) {
    const finding = row.flags & PASS_FLAG.integrity ? findingFor(row, context) : undefined;
    if (finding) findings.push(finding);
    for (const kind of ["client", "checked", "measurement"] as const) {
      const flagged =
        kind === "client" ? row.client_mismatch : kind === "checked" ? row.checked_mismatch : row.measurement_mismatch;
      if (flagged) {
        mismatches.push({
          kind,
          pass_id: row.pass_id,
          pass_number: row.pass_number,
          client_verdict: row.client_verdict,
          verdict: row.verdict,
          checked_verdict: row.checked_verdict,
        });
      }
    }
    if (row.flags & PASS_FLAG.sizeCrossing) {
      crossings.push({
        pass_id: row.pass_id,
        pass_number: row.pass_number,
        metric: "size",
        direction: row.size < row.floor_size ? "below" : "above",
      });
    }
    if (row.flags & PASS_FLAG.densityCrossing) {
      crossings.push({
        pass_id: row.pass_id,
        pass_number: row.pass_number,
        metric: "density",
        direction: row.density < row.floor_density ? "below" : "above",
      });
    }
    const span = floors.at(-1);
    if (span && span.policy_version === row.policy_version && span.content_class === row.content_class) {
      span.to = row.pass_number;
    } else {
      floors.push({
        content_class: row.content_class,
        policy_version: row.policy_version,
        from: row.pass_number,
        to: row.pass_number,
        min_size_bytes: row.floor_size,
        min_semantic_density: row.floor_density,
        max_pass_number: row.max_pass,
      });
    }
    points.push({
      pass_id: row.pass_id,
      pass_number: row.pass_number,
      size: row.size,
      density: row.density,
      verdict: row.verdict,
      directive: row.directive,
      policy_version: row.policy_version,
      client_verdict: row.client_verdict,
      client_mismatch: row.client_mismatch,
      measured_density: row.measured_density,
      checked_verdict: row.checked_verdict,
      measurement_mismatch: row.measurement_mismatch,
      effective_verdict: row.effective_verdict,
      unmeasured: row.unmeasured,
      integrity: finding?.kind ?? null,
    });
  }
  return {
    total_passes: totalPasses,
    points,
    floors,
    findings,
    mismatches,
    crossings,
    downsampled: points.length < totalPasses,
    flagged_truncated: flaggedTruncated,
  };
}
