// The routes of the guard and the ingest of receipts.
import { defineRoute } from "../http/contract";
import { z } from "zod";
import { boundaryReceiptSchema, boundaryWireSchema, MAX_BOUNDARY_BATCH } from "../schemas/boundaries";
import { evaluateItemSchema, MAX_EVALUATE_BATCH } from "../schemas/guard";
import { measurementSchema, measureRequestSchema } from "../schemas/measure";
import { manifestSchema, MAX_PASS_BATCH, passReceiptSchema, passResultSchema } from "../schemas/passes";
import { otlpExportResponseSchema } from "../schemas/traces";
import { oneOrBatch, results } from "./shapes";

export const INGEST_ROUTES = {
  evaluate: defineRoute("/api/v1/evaluate", {
    POST: {
      scope: "ingest",
      summary: "Evaluate passes with the collapse guard (stateless)",
      description: `One \`{"pass", "policy"}\` or an array of up to ${MAX_EVALUATE_BATCH}; answers byte for byte as the reference.`,
      tag: "Guard",
      body: z.union([evaluateItemSchema, z.array(evaluateItemSchema).min(1).max(MAX_EVALUATE_BATCH)]),
      responses: {
        200: {
          description: "The manifest, or an array of them in input order.",
          schema: z.union([manifestSchema, z.array(manifestSchema)]),
        },
      },
    },
  }),
  measure: defineRoute("/api/v1/measure", {
    POST: {
      scope: "ingest or read",
      summary: "Measure content's density and the facts it kept (stateless)",
      description:
        "Parseability, schema validity, semantic density and the source's facts retained, recoverable or lost, by the documented method (docs/measurement.md). Content that does not parse is a measurement, never an error. Measured off the request thread, within a budget of time and memory: past it, 422 `measurement_failed`; with every measurement thread busy and its queue full, 503 `server_busy`.",
      tag: "Guard",
      body: measureRequestSchema,
      responses: { 200: { description: "The measurement.", schema: measurementSchema } },
    },
  }),
  passes: defineRoute("/api/v1/passes", {
    POST: {
      scope: "ingest",
      summary: "Ingest compression-pass receipts",
      description: `One receipt, or \`{"receipts": [...]}\` with up to ${MAX_PASS_BATCH}, all or nothing. Idempotent on (chain_id, pass_id). A receipt whose content the server has (\`content\`, or a cached original whose SHA-256 is its \`current_content_hash\`) is measured against its chain's source (pass 1's \`input_content\`, kept once per chain, or the cached original named by pass 1's \`input_content_hash\`): docs/measurement.md. Cached originals count only for a caller with the \`read\` scope; any other is measured as if none were cached, and a stored result sent again answers it without examples (docs/access.md, "Derived data"). \`content\` or \`input_content\` over 4 MiB is 413.`,
      tag: "Receipts",
      body: oneOrBatch(passReceiptSchema, "receipts", MAX_PASS_BATCH),
      responses: {
        200: {
          description: "Every receipt was already stored with this body; nothing written.",
          schema: results(passResultSchema),
        },
        201: { description: "Stored.", schema: results(passResultSchema) },
      },
      errors: [409],
    },
  }),
  boundaries: defineRoute("/api/v1/boundaries", {
    POST: {
      scope: "ingest",
      summary: "Ingest compression-boundary receipts",
      description: `One, or \`{"boundaries": [...]}\` with up to ${MAX_BOUNDARY_BATCH}. Idempotent on (chain_id, pass_number).`,
      tag: "Receipts",
      body: oneOrBatch(boundaryReceiptSchema, "boundaries", MAX_BOUNDARY_BATCH),
      responses: {
        200: { description: "Already stored; nothing written.", schema: results(boundaryWireSchema) },
        201: { description: "Stored.", schema: results(boundaryWireSchema) },
      },
      errors: [409],
    },
  }),
  otlpTraces: defineRoute("/api/v1/otlp/v1/traces", {
    POST: {
      scope: "ingest",
      summary: "OTLP/HTTP trace export: spans carrying pass receipts",
      description:
        "Point a stock exporter at it with `OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT/api/v1/otlp`. Answers in the request's encoding; spans that are not receipts, or invalid ones, are counted in `partialSuccess`.",
      tag: "Receipts",
      bodyMedia: {
        "application/x-protobuf": {
          type: "string",
          contentMediaType: "application/x-protobuf",
          description: "ExportTraceServiceRequest",
        },
        "application/json": { type: "object", description: "ExportTraceServiceRequest in OTLP/JSON" },
      },
      responses: {
        200: {
          description: "Taken (ExportTraceServiceResponse).",
          schema: otlpExportResponseSchema,
          media: {
            "application/x-protobuf": { schema: { type: "string", contentMediaType: "application/x-protobuf" } },
          },
        },
      },
      errors: [429],
    },
  }),
};
