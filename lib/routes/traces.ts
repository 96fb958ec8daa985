// The routes of distilled reasoning traces.
import { defineRoute } from "../http/contract";
import { listOf } from "../schemas/common";
import {
  compressedResidualSchema,
  compressRequestSchema,
  rejectionListQuerySchema,
  traceListQuerySchema,
  traceRejectionListSchema,
  traceSubmissionSchema,
  traceSummarySchema,
  traceWireSchema,
} from "../schemas/traces";

export const TRACE_ROUTES = {
  list: defineRoute("/api/v1/traces", {
    GET: {
      scope: "read",
      summary: "List distilled traces",
      tag: "Traces",
      query: traceListQuerySchema,
      responses: { 200: { description: "A page of traces (without raw nodes).", schema: listOf(traceSummarySchema) } },
    },
    POST: {
      scope: "ingest",
      summary: "Distil and store a reasoning trace",
      description: [
        "A VERIFIED_CONCLUSION without a receipt fails closed: 422 `missing_verification_receipt`.",
        "`parent_trace_id` names the predecessor this trace continues; it may not be stored yet (the link is made when it",
        "arrives). The trace is compared with up to 8 generations of ancestors and the answer's `findings` lists the walls",
        "it hit (`wall_reexplored`, `axiom_contradicted`; docs/lineage.md). A parent that would close a cycle, or the",
        "trace's own id, is refused: 422 `validation_failed` naming `parent_trace_id`.",
      ].join(" "),
      tag: "Traces",
      body: traceSubmissionSchema,
      responses: {
        200: { description: "Already stored; nothing written.", schema: traceWireSchema },
        201: { description: "Stored.", schema: traceWireSchema },
      },
      errors: [409],
    },
  }),
  detail: defineRoute("/api/v1/traces/{trace_id}", {
    GET: {
      scope: "read",
      summary: "A stored trace",
      tag: "Traces",
      responses: { 200: { description: "The trace.", schema: traceWireSchema } },
      errors: [404],
    },
  }),
  compress: defineRoute("/api/v1/traces/compress", {
    POST: {
      scope: "ingest",
      summary: "Distil a reasoning trace (stateless)",
      tag: "Traces",
      body: compressRequestSchema,
      responses: {
        200: { description: "The residual, byte for byte as the reference.", schema: compressedResidualSchema },
      },
    },
  }),
  rejections: defineRoute("/api/v1/trace-rejections", {
    GET: {
      scope: "read",
      summary: "Trace submissions refused fail-closed",
      tag: "Traces",
      query: rejectionListQuerySchema,
      responses: { 200: { description: "A page of refusals.", schema: traceRejectionListSchema } },
    },
  }),
};
