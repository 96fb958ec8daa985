import { z } from "zod";
import { NODE_TYPES } from "../trace";
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
