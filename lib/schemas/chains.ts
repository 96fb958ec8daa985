import { z } from "zod";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { contentClassSchema, nonNegativeInt as count, utcTimestamp } from "./common";
import { boundaryWireSchema } from "./boundaries";
import { verdictSchema } from "./guard";
import { passWireSchema } from "./passes";
import { INTEGRITY_KINDS, type IntegrityFinding } from "../chains/integrity";
import { MARKER_FINDING_KINDS } from "../markers/findings";
import { RANGE_KEYS, type RangeKey } from "../chains/ranges";

/** What a chain can be, as its summary's `statuses` says (every one that applies). */
const CHAIN_STATUSES = [
  /**
   * Content went past a floor: a pass after a halt, a restore not honoured, or a pass numbered
   * above a floor pass that no boundary answers.
   */
  "collapsed",
  /**
   * The guard reached a floor (FLOOR_BREACH_DETECTED or COLLAPSE_IMMINENT on the verdict the
   * class's density_source follows), a halt, restore or accept_loss boundary at that pass
   * answered it, and nothing went past a floor.
   */
  "guarded",
  "healthy",
  "collapse_imminent",
  "floor_breached",
  "client_mismatch",
  /** A pass's content contradicts the client's claims (server-side content checks). */
  "checked_mismatch",
  /** A pass's measured values change the guard's verdict on the client's claims (measured density). */
  "measurement_mismatch",
  "broken_integrity",
  "continued_after_halt",
  "restore_not_honoured",
  /** A planted canary lost, or canary retention below the class's floor (docs/canaries.md); also `broken_integrity`. */
  "canary_lost",
  /** A marker integrity finding (docs/markers.md): a CCR marker that leads nowhere, or an original that came back compressed. */
  "broken_markers",
] as const;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];

/** What the `status` filter takes: any status. */
export const CHAIN_STATUS_FILTERS = CHAIN_STATUSES;
export type ChainStatusFilter = ChainStatus;

/** One line per status, for the API reference (docs/ingest.md#chain-statuses says the same). */
export const CHAIN_STATUS_MEANINGS: Record<ChainStatus, string> = {
  collapsed:
    "content went past a floor: a pass after a halt, a restore not honoured, or a pass after a floor pass that no boundary answers",
  guarded:
    "the guard reached a floor (FLOOR_BREACH_DETECTED or COLLAPSE_IMMINENT, on the verdict the class's density_source follows) and the agent obeyed: a halt, restore or accept_loss boundary at that pass, and nothing went past a floor",
  healthy: "no pass reached a floor, no mismatch, no integrity or marker finding",
  collapse_imminent: "a pass's verdict is COLLAPSE_IMMINENT",
  floor_breached: "a pass's verdict is FLOOR_BREACH_DETECTED",
  client_mismatch: "the agent's own verdict or digest disagreed with the server's",
  checked_mismatch: "a pass's content contradicts what the agent claimed about it",
  measurement_mismatch: "a pass's measured values change the guard's verdict on the agent's claims",
  broken_integrity:
    "any integrity finding of the chain's hashes, directives or canaries (marker findings are `broken_markers`)",
  continued_after_halt: "a pass after the chain's halt point",
  restore_not_honoured: "after a restore boundary, the next pass did not start from the restored pass's output",
  canary_lost:
    "a canary_lost finding: a planted canary did not survive a pass, or canary retention fell below the class's min_canary_retention",
  broken_markers:
    "a marker integrity finding: a marker naming no original, an original expired or evicted, nested, re-compressed, or sent without the retrieve tool",
};

const statusMeanings = CHAIN_STATUSES.map((s) => `\`${s}\`: ${CHAIN_STATUS_MEANINGS[s]}`).join("; ");

/**
 * Several statuses at once: a comma list (`status=collapsed,client_mismatch`), and repeated
 * keys are joined into one (`status=a&status=b`). A chain matches when it has any of them.
 * An unknown value is refused, naming it.
 */
/** The parts of a status list as the filter reads them: split at commas, spaces trimmed. */
export const statusListParts = (value: string): string[] => value.split(",").map((v) => v.trim());

export const statusFilterSchema = z
  .string()
  .transform(statusListParts)
  .pipe(
    z
      .array(
        z.enum(CHAIN_STATUS_FILTERS, {
          error: (issue) => `unknown status ${JSON.stringify(issue.input)}; one of ${CHAIN_STATUS_FILTERS.join(", ")}`,
        }),
      )
      .min(1),
  )
  .transform((values) => [...new Set(values)])
  .meta({
    description: `Chains with any of these statuses: one, or a comma list (repeated \`status\` keys are joined into one). An unknown value is a 422 naming it. ${statusMeanings}.`,
    // Spaces around the commas are trimmed, as the server does.
    pattern: `^ *(${CHAIN_STATUS_FILTERS.join("|")}) *(, *(${CHAIN_STATUS_FILTERS.join("|")}) *)*$`,
    examples: ["collapsed", "guarded", "continued_after_halt,restore_not_honoured"],
  });
/**
 * `attention` (the default): chains that need attention first: collapsed, then those with any
 * other problem (a floor reached that no boundary answered, a mismatch, an integrity finding,
 * canary loss among them, a marker finding), then the rest, each group by last activity,
 * newest first.
 */
export const CHAIN_SORTS = [
  "attention",
  "last_activity",
  "pass_count",
  "min_density",
  "min_measured_density",
  "min_size",
] as const;
export type ChainSort = (typeof CHAIN_SORTS)[number];

/**
 * Chains with a marker finding of any of these kinds (docs/markers.md): one, or a comma list.
 * Narrows `broken_markers` to the kinds asked for; an unknown kind is refused, naming it.
 */
const markerKindFilterSchema = z
  .string()
  .transform(statusListParts)
  .pipe(
    z
      .array(
        z.enum(MARKER_FINDING_KINDS, {
          error: (issue) =>
            `unknown marker finding kind ${JSON.stringify(issue.input)}; one of ${MARKER_FINDING_KINDS.join(", ")}`,
        }),
      )
      .min(1),
  )
  .transform((values) => [...new Set(values)])
  .meta({
    description: `Chains with a marker finding of any of these kinds (docs/markers.md): one, or a comma list. An unknown kind is a 422 naming it. Kinds: ${MARKER_FINDING_KINDS.join(", ")}.`,
    pattern: `^ *(${MARKER_FINDING_KINDS.join("|")}) *(, *(${MARKER_FINDING_KINDS.join("|")}) *)*$`,
    examples: ["marker_nested", "marker_unknown,marker_expired"],
  });

export const chainListQuerySchema = z.object({
  status: statusFilterSchema.optional(),
  marker_kind: markerKindFilterSchema.optional(),
  /** Only chains with activity in the last 24h, 7d, 30d or 90d (`all`: no limit), as the overview counts them. */
  range: z.enum(RANGE_KEYS as [RangeKey, ...RangeKey[]]).optional(),
  content_class: contentClassSchema.optional(),
  /** The OpenTelemetry `service.name` the chain's receipts came from. */
  service: z.string().min(1).max(256).optional(),
  q: z.string().max(256).optional(),
  sort: z.enum(CHAIN_SORTS).default("attention").meta({
    description:
      "`attention` (the default): collapsed chains first, then chains with any other problem (a floor reached that no boundary answered, a mismatch, an integrity finding including canary loss, a marker finding), then the rest; within each, newest activity first (`order=asc` reverses all of it). The others sort by that one value, ties by chain id.",
  }),
  order: z.enum(["asc", "desc"]).optional(),
  cursor: z.string().optional(),
  limit: limitSchema,
});
/** `GET /api/v1/exports/chains`: the list's filters and sort, every page, as CSV or JSON. */
export const chainExportQuerySchema = chainListQuerySchema.omit({ cursor: true, limit: true }).extend({
  format: z.enum(["csv", "json"]).default("csv"),
});

export type ChainListQuery = Omit<z.infer<typeof chainListQuerySchema>, "order" | "cursor"> & { order: "asc" | "desc" };

/**
 * A chains-list row's keyset key: its sort value and chain id, or for `attention` its urgency
 * (2 collapsed, 1 another problem, 0 none), last activity and chain id.
 */
export type ChainKey = [string | number, string] | [number, string, string];

// The cursor's sort key must have the sort's type, or the keyset comparison would fail in
// the database instead of answering the client.
const CURSOR_SCHEMAS = {
  attention: z.tuple([cursorPart.int.min(0).max(2), cursorPart.timestamp, cursorPart.text]),
  last_activity: z.tuple([cursorPart.timestamp, cursorPart.text]),
  pass_count: z.tuple([cursorPart.int32, cursorPart.text]),
  min_density: z.tuple([cursorPart.number.min(0).max(2), cursorPart.text]),
  min_measured_density: z.tuple([cursorPart.number.min(0).max(2), cursorPart.text]),
  min_size: z.tuple([cursorPart.int, cursorPart.text]),
} satisfies Record<ChainSort, z.ZodTuple>;

/** A chains-list cursor checked against the sort it pages; throws the contract's 422 if it does not fit. */
export function decodeChainCursor(cursor: string | undefined, sort: ChainSort): ChainKey | undefined {
  return decodeCursor(cursor, CURSOR_SCHEMAS[sort]);
}

const ASCENDING_SORTS: ReadonlySet<ChainSort> = new Set(["min_density", "min_measured_density", "min_size"]);

/** Lowest density and smallest size read best ascending; activity and pass counts descending. */
export function defaultOrder(sort: ChainListQuery["sort"]): "asc" | "desc" {
  return ASCENDING_SORTS.has(sort) ? "asc" : "desc";
}

// ---------------------------------------------------------------------------------------
// Answers

const collapsePointSchema = z
  .object({ pass_id: z.string(), pass_number: count, verdict: verdictSchema })
  .meta({ id: "CollapsePoint" });

const integrityFindingSchema = z
  .object({
    kind: z
      .enum(INTEGRITY_KINDS)
      .describe(
        "missing_pass: passes never received before this one; repeated_pass: a pass number seen twice; hash_mismatch: the input hash is not the previous pass's output hash; continued_after_halt: the first pass above the chain's halt point (a halt boundary or an unanswered HALT directive); restore_not_honoured: after a restore boundary, the input hash is not the restored pass's output hash; canary_lost: a planted canary no longer survives (docs/canaries.md). Marker findings (docs/markers.md): marker_unknown: a marker names no original this store holds; marker_expired: a marker's original expired or was evicted while the chain was active; marker_nested: a marker's original is itself compressed content whose own marker names no original this store holds; retrieve_recompressed: the pass compressed a retrieved original's text again; marker_without_tool: the pass sent markers to a context (context_tools) without a retrieve tool.",
      ),
    pass_id: z.string(),
    pass_number: count,
    detail: z.string(),
    hash: z
      .string()
      .optional()
      .describe("marker findings: the marker's hash (the original's, for retrieve_recompressed)"),
  })
  .meta({ id: "IntegrityFinding" }) satisfies z.ZodType<IntegrityFinding>;
export type { IntegrityFinding };

const chainStatusSchema = z.enum(CHAIN_STATUSES);

/** A chain as `GET /api/v1/chains` lists it. */
export const chainSummarySchema = z
  .object({
    chain_id: z.string(),
    content_class: z.string(),
    pass_count: count,
    boundary_count: count,
    last_pass_id: z.string().nullable(),
    last_pass_number: count.nullable(),
    last_verdict: verdictSchema.nullable(),
    collapse_point: collapsePointSchema.nullable(),
    statuses: z.array(chainStatusSchema).describe(`Every status that applies. ${statusMeanings}.`),
    client_mismatches: count,
    /** Passes whose content contradicts the client's claims. */
    checked_mismatches: count,
    /** Passes whose measured density, parseability or schema changes the guard's verdict on the claims. */
    measurement_mismatches: count,
    integrity_findings: count,
    min_semantic_density: z
      .number()
      .nullable()
      .describe("the lowest semantic_density_score the chain's receipts claim (not the measured density)"),
    min_measured_density: z
      .number()
      .nullable()
      .describe(
        "the lowest density the server measured for the chain's passes (docs/measurement.md); null while none was measured",
      ),
    min_size_bytes: count.nullable(),
    first_seen_at: utcTimestamp,
    last_activity_at: utcTimestamp,
    /** The OpenTelemetry `service.name` of the agent that sent the chain, when it came through OTLP. */
    service_name: z.string().nullable().optional(),
  })
  .meta({ id: "ChainSummary" });
export type ChainSummaryWire = z.infer<typeof chainSummarySchema>;

/** One chain whole, as `GET /api/v1/chains/{chain_id}` answers it. */
export const chainDetailSchema = z
  .object({
    chain_id: z.string(),
    content_class: z.string(),
    passes: z.array(passWireSchema),
    boundaries: z.array(boundaryWireSchema),
    collapse_point: collapsePointSchema.nullable(),
    integrity: z.array(integrityFindingSchema),
    client_mismatches: count,
    checked_mismatches: count,
    measurement_mismatches: count,
    service_name: z.string().nullable().optional(),
  })
  .meta({ id: "Chain" });
export type ChainDetail = z.infer<typeof chainDetailSchema>;
