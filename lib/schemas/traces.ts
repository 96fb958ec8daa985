import { z } from "zod";
import { ApiError } from "../errors";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { NODE_TYPES, type MissingVerificationReceiptError } from "../traces/trace";
import { LINEAGE_FINDING_KINDS, LINEAGE_MAX_DEPTH } from "../traces/lineage";
import { REJECTED_CONTENT_MAX_BYTES } from "../traces/types";
import { chainIdSchema, listOf, nonNegativeInt as count, text, utcTimestamp as timestamp } from "./common";

const MAX_TRACE_NODES = 10_000;

const reasoningNodeSchema = z.object({
  node_id: text({ max: 256 }),
  node_type: z.enum(NODE_TYPES),
  content: text({ max: 65_536 }),
  verification_receipt: text({ max: 65_536 }).nullable().default(null),
});

export const compressRequestSchema = z.object({
  nodes: z.array(reasoningNodeSchema).max(MAX_TRACE_NODES),
});

const traceIdSchema = text({ min: 1, max: 256 });

export const traceSubmissionSchema = compressRequestSchema
  .extend({
    trace_id: traceIdSchema,
    chain_id: chainIdSchema.nullish(),
    /** The predecessor this trace continues; it may arrive later (docs/lineage.md). */
    parent_trace_id: traceIdSchema.nullish(),
    residual_digest: text({ max: 256 }).nullish(),
    keep_nodes: z.boolean().default(false),
  })
  .refine((s) => s.parent_trace_id !== s.trace_id, {
    path: ["parent_trace_id"],
    message: "a trace cannot be its own parent",
  });
export type TraceSubmission = z.infer<typeof traceSubmissionSchema>;

/** The contract's fail-closed answer: 422 naming the node, in the message and in `error.node_id`. */
export function missingReceiptError(error: MissingVerificationReceiptError): ApiError {
  return new ApiError(
    "missing_verification_receipt",
    `Node ${JSON.stringify(error.nodeId)} is a VERIFIED_CONCLUSION without a verification receipt; it cannot be promoted to a binding axiom.`,
    {
      extra: { node_id: error.nodeId },
      issues: [{ path: `nodes.${error.nodeIndex}.verification_receipt`, message: "required for VERIFIED_CONCLUSION" }],
    },
  );
}

/** A keyset position in a newest-first list: the row's creation time and its unique tiebreaker. */
export type ListKey<T extends string | number> = readonly [createdAt: string, tiebreak: T];

function cursorOf<T extends z.ZodType<string | number>>(tiebreak: T) {
  const schema = z.tuple([cursorPart.timestamp, tiebreak]);
  return (cursor: string | undefined, param = "cursor"): ListKey<z.infer<T>> | undefined =>
    decodeCursor(cursor, schema, param) as ListKey<z.infer<T>> | undefined;
}

export const decodeTraceCursor = cursorOf(cursorPart.text);
export const decodeRejectionCursor = cursorOf(cursorPart.id);

// An empty parameter is an unset filter: that is what a search form submits.
const optionalId = z
  .string()
  .max(256)
  .optional()
  .transform((v) => (v ? v : undefined));

const searchText = z
  .string()
  .max(256)
  .optional()
  .transform((v) => v?.trim() || undefined);

export const traceListQuerySchema = z.object({
  chain_id: optionalId,
  /** "true": only traces whose client digest differs from the server's; "false": only those that match or sent none. */
  mismatch: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => (v ? v === "true" : undefined)),
  /** "true": only traces with lineage findings (docs/lineage.md); "false": only those without. */
  walls: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => (v ? v === "true" : undefined)),
  /** Text in an axiom, its proof receipt, or an invalidation (case-insensitive substring). */
  q: searchText,
  cursor: z.string().optional(),
  limit: limitSchema,
});

export const rejectionListQuerySchema = z.object({
  chain_id: optionalId,
  trace_id: optionalId,
  cursor: z.string().optional(),
  limit: limitSchema,
});

// ---------------------------------------------------------------------------------------
// Answers

const bindingConclusionSchema = z
  .object({ axiom: z.string(), proof_receipt: z.string(), invalidated_paths: z.array(z.string()) })
  .meta({ id: "BindingConclusion" });

export const compressedResidualSchema = z
  .object({
    conclusions: z.array(bindingConclusionSchema),
    eviction_boundary_index: z.int(),
    residual_digest: z.string(),
  })
  .meta({ id: "CompressedResidual" });

const traceShape = {
  trace_id: z.string(),
  chain_id: z.string().nullable(),
  parent_trace_id: z.string().nullable().describe("the predecessor this trace continues, stored or not yet"),
  conclusions: z.array(bindingConclusionSchema),
  eviction_boundary_index: z.int(),
  residual_digest: z.string(),
  client_residual_digest: z.string().nullable(),
  digest_mismatch: z.boolean(),
  invalidated_paths: z.array(z.string()),
  node_count: count,
  pruned_chatter_count: count,
  omitted_falsified_paths: count,
  created_at: timestamp,
};

const traceFindingSchema = z
  .object({
    kind: z
      .enum(LINEAGE_FINDING_KINDS)
      .describe(
        "`wall_reexplored`: a node took a path an ancestor ruled out; `axiom_contradicted`: an invalidation of this trace is an ancestor's binding axiom",
      ),
    ancestor_trace_id: z.string(),
    depth: z.int().min(1).describe(`generations up (1 is the parent; at most ${LINEAGE_MAX_DEPTH} are compared)`),
    node_id: z.string().nullable().describe("this trace's first node on that path"),
    node_type: z.enum(NODE_TYPES).nullable(),
    node_count: count.describe("how many of this trace's nodes took that path"),
    text: z.string().nullable().describe("this trace's invalidation that contradicts the axiom (null for a wall)"),
    ancestor_text: z.string().describe("the ancestor's ruled-out path, or its binding axiom"),
    ancestor_receipt: z.string().describe("what ruled the path out, or the axiom's proof receipt"),
    created_at: timestamp,
  })
  .meta({ id: "TraceFinding" });
export type TraceFindingWire = z.infer<typeof traceFindingSchema>;

export const traceWireSchema = z
  .object({
    ...traceShape,
    findings: z
      .array(traceFindingSchema)
      .describe("walls this trace hit that its ancestors had found (docs/lineage.md), nearest ancestor first"),
    nodes: z
      .array(
        z.object({
          node_id: z.string(),
          node_type: z.enum(NODE_TYPES),
          content: z.string(),
          verification_receipt: z.string().nullable().optional(),
        }),
      )
      .nullable(),
  })
  .meta({ id: "Trace" });
export type TraceWire = z.infer<typeof traceWireSchema>;

export const traceSummarySchema = z
  .object({
    ...traceShape,
    axioms: z.array(z.string()),
    axiom_count: count,
    invalidation_count: count,
    nodes_kept: z.boolean(),
    finding_count: count.describe("how many lineage findings the trace has (walls re-explored, axioms contradicted)"),
  })
  .meta({ id: "TraceSummary" });
/** A list row: the stored trace without its raw nodes, plus the counts a table shows. */
export type TraceSummary = z.infer<typeof traceSummarySchema>;

const traceRejectionSchema = z
  .object({
    id: z.int(),
    trace_id: z.string().nullable(),
    chain_id: z.string().nullable(),
    node_id: z.string(),
    node_index: count,
    node_type: z
      .string()
      .nullable()
      .describe("the refused node's type (null for refusals recorded before it was kept)"),
    content: z
      .string()
      .nullable()
      .describe(
        `the refused node's content, its first ${REJECTED_CONTENT_MAX_BYTES} UTF-8 bytes cut on a character boundary`,
      ),
    content_bytes: count.nullable().describe("the content's full size in UTF-8 bytes"),
    content_truncated: z.boolean().describe("`content` is only the first part"),
    reason: z.string().nullable().describe("why it was refused: the 422's message"),
    created_at: timestamp,
  })
  .meta({ id: "TraceRejection" });
export type TraceRejectionWire = z.infer<typeof traceRejectionSchema>;

export const traceRejectionListSchema = listOf(traceRejectionSchema).extend({ total: count });

/** OTLP's ExportTraceServiceResponse in its JSON encoding (an empty object when every span was taken). */
export const otlpExportResponseSchema = z
  .object({
    partialSuccess: z
      .object({
        rejectedSpans: z.string().describe("an int64, as OTLP/JSON writes it"),
        errorMessage: z.string(),
      })
      .optional(),
  })
  .meta({ id: "OtlpExportTraceServiceResponse" });
