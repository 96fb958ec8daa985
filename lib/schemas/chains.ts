import { z } from "zod";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { contentClassSchema, nonNegativeInt as count, utcTimestamp } from "./common";
import { boundaryWireSchema } from "./boundaries";
import { verdictSchema } from "./guard";
import { passWireSchema } from "./passes";
import { INTEGRITY_KINDS, type IntegrityFinding } from "../chains/integrity";
import { RANGE_KEYS, type RangeKey } from "../chains/ranges";

/** What a chain can be, as its summary's `statuses` says (every one that applies). */
const CHAIN_STATUSES = [
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
] as const;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];

/** What the `status` filter takes: any status, or `collapsed` (floor breach or collapse imminent). */
export const CHAIN_STATUS_FILTERS = ["collapsed", ...CHAIN_STATUSES] as const;
export type ChainStatusFilter = (typeof CHAIN_STATUS_FILTERS)[number];

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
    description: `Chains with any of these statuses: one, or a comma list (repeated \`status\` keys are joined into one). \`collapsed\` is a floor breach or collapse imminent. An unknown value is a 422 naming it. One of: ${CHAIN_STATUS_FILTERS.join(", ")}.`,
    // Spaces around the commas are trimmed, as the server does.
    pattern: `^ *(${CHAIN_STATUS_FILTERS.join("|")}) *(, *(${CHAIN_STATUS_FILTERS.join("|")}) *)*$`,
    examples: ["collapsed", "continued_after_halt,restore_not_honoured"],
  });
export const CHAIN_SORTS = ["last_activity", "pass_count", "min_density", "min_measured_density", "min_size"] as const;
export type ChainSort = (typeof CHAIN_SORTS)[number];

export const chainListQuerySchema = z.object({
  status: statusFilterSchema.optional(),
  /** Only chains with activity in the last 24h, 7d, 30d or 90d (`all`: no limit), as the overview counts them. */
  range: z.enum(RANGE_KEYS as [RangeKey, ...RangeKey[]]).optional(),
  content_class: contentClassSchema.optional(),
  /** The OpenTelemetry `service.name` the chain's receipts came from. */
  service: z.string().min(1).max(256).optional(),
  q: z.string().max(256).optional(),
  sort: z.enum(CHAIN_SORTS).default("last_activity"),
  order: z.enum(["asc", "desc"]).optional(),
  cursor: z.string().optional(),
  limit: limitSchema,
});
/** `GET /api/v1/exports/chains`: the list's filters and sort, every page, as CSV or JSON. */
export const chainExportQuerySchema = chainListQuerySchema.omit({ cursor: true, limit: true }).extend({
  format: z.enum(["csv", "json"]).default("csv"),
});

export type ChainListQuery = Omit<z.infer<typeof chainListQuerySchema>, "order" | "cursor"> & { order: "asc" | "desc" };

// The cursor's sort key must have the sort's type, or the keyset comparison would fail in
// the database instead of answering the client.
const CURSOR_SCHEMAS = {
  last_activity: z.tuple([cursorPart.timestamp, cursorPart.text]),
  pass_count: z.tuple([cursorPart.int32, cursorPart.text]),
  min_density: z.tuple([cursorPart.number.min(0).max(2), cursorPart.text]),
  min_measured_density: z.tuple([cursorPart.number.min(0).max(2), cursorPart.text]),
  min_size: z.tuple([cursorPart.int, cursorPart.text]),
} satisfies Record<ChainSort, z.ZodTuple>;

/** A chains-list cursor checked against the sort it pages; throws the contract's 422 if it does not fit. */
export function decodeChainCursor(cursor: string | undefined, sort: ChainSort): [string | number, string] | undefined {
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
        "missing_pass: passes never received before this one; repeated_pass: a pass number seen twice; hash_mismatch: the input hash is not the previous pass's output hash; continued_after_halt: the first pass above the chain's halt point (a halt boundary or an unanswered HALT directive); restore_not_honoured: after a restore boundary, the input hash is not the restored pass's output hash.",
      ),
    pass_id: z.string(),
    pass_number: count,
    detail: z.string(),
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
    statuses: z.array(chainStatusSchema),
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
