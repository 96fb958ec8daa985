import { z } from "zod";
import { ApiError } from "../errors";
import { cursorPart, decodeCursor } from "../http/cursor";
import { limitSchema } from "../http/list";
import { NODE_TYPES, type MissingVerificationReceiptError } from "../traces/trace";
import { chainIdSchema, text } from "./common";

export const MAX_TRACE_NODES = 10_000;

export const reasoningNodeSchema = z.object({
  node_id: text({ max: 256 }),
  node_type: z.enum(NODE_TYPES),
  content: text({ max: 65_536 }),
  verification_receipt: text({ max: 65_536 }).nullable().default(null),
});

export const compressRequestSchema = z.object({
  nodes: z.array(reasoningNodeSchema).max(MAX_TRACE_NODES),
});

export const traceSubmissionSchema = compressRequestSchema.extend({
  trace_id: text({ min: 1, max: 256 }),
  chain_id: chainIdSchema.nullish(),
  residual_digest: text({ max: 256 }).nullish(),
  keep_nodes: z.boolean().default(false),
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
