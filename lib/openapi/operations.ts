// What the OpenAPI document says about each route of the registry: the zod schemas that
// validate its input (the same objects the handlers call safeParse with) and those of its
// answers. The type below maps over the registry, so a route or method added there without
// an entry here does not compile.
import { z } from "zod";
import type { METHODS, ROUTES } from "../http/registry";
import {
  apiKeySchema,
  createdApiKeySchema,
  createKeySchema,
  createOperatorSchema,
  operatorSchema,
  sessionSchema,
  signedInSchema,
  signInSchema,
} from "../schemas/access";
import { boundaryReceiptSchema, boundaryWireSchema, MAX_BOUNDARY_BATCH } from "../schemas/boundaries";
import { chainDetailSchema, chainExportQuerySchema, chainListQuerySchema, chainSummarySchema } from "../schemas/chains";
import { contentClassSchema, listOf } from "../schemas/common";
import { healthSchema } from "../schemas/health";
import { evaluateItemSchema, MAX_EVALUATE_BATCH } from "../schemas/guard";
import {
  originalGetQuerySchema,
  originalContentQuerySchema,
  originalListQuerySchema,
  originalStatsQuerySchema,
  originalStatsSchema,
  originalSummarySchema,
  retrievedOriginalSchema,
  retrieveRequestSchema,
  storeOriginalSchema,
  storeResultSchema,
  textSliceSchema,
} from "../schemas/originals";
import { measurementSchema, measureRequestSchema } from "../schemas/measure";
import { MAX_PASS_BATCH, manifestSchema, passReceiptSchema, passResultSchema } from "../schemas/passes";
import {
  policyBodySchema,
  policyListQuerySchema,
  policyListSchema,
  policyWireSchema,
  policyWithVersionsSchema,
  recommendationSchema,
} from "../schemas/policies";
import {
  createdWebhookSchema,
  createWebhookSchema,
  testEventResultSchema,
  updateWebhookSchema,
  webhookDeliveryWireSchema,
  webhookListQuerySchema,
  webhookWireSchema,
} from "../schemas/webhooks";
import {
  headroomRetrieveRequestSchema,
  headroomRetrieveSchema,
  headroomStatsSchema,
  headroomToolCallRequestSchema,
  headroomToolCallSchema,
} from "../schemas/headroom";
import {
  compressedResidualSchema,
  compressRequestSchema,
  otlpExportResponseSchema,
  rejectionListQuerySchema,
  traceListQuerySchema,
  traceRejectionListSchema,
  traceSubmissionSchema,
  traceSummarySchema,
  traceWireSchema,
} from "../schemas/traces";

export interface ResponseSpec {
  description: string;
  /** JSON body; omit for a body that is not JSON. */
  schema?: z.ZodType;
  /** Other media types this answer may take (text/csv, text/plain, text/event-stream). */
  media?: Record<string, { schema?: Record<string, unknown>; description?: string }>;
  headers?: Record<string, string>;
}

export interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  /** A zod object whose keys are the query parameters. */
  query?: z.ZodObject;
  /** Path parameters that are checked beyond "a string" (e.g. a content class). */
  pathParams?: Record<string, z.ZodType>;
  body?: z.ZodType;
  /** Request media types other than JSON (OTLP protobuf). */
  bodyMedia?: Record<string, Record<string, unknown>>;
  responses: Record<number, ResponseSpec>;
  /** Error statuses particular to this operation; the usual ones are added from its shape. */
  errors?: number[];
  /**
   * "detail": a Headroom-compatible endpoint, whose client errors are FastAPI's `{"detail": ...}`
   * (a refused credential or Host, and 503, stay the API's error contract).
   */
  errorBody?: "detail";
}

type OperationTable = {
  [P in keyof typeof ROUTES]: { [M in keyof (typeof ROUTES)[P] & (typeof METHODS)[number]]: OperationSpec };
};

/** One item, or `{ [key]: [...] }` with up to `max` of them: how the ingest endpoints take batches. */
function oneOrBatch(item: z.ZodType, key: string, max: number) {
  return z.union([item, z.object({ [key]: z.array(item).min(1).max(max) })]);
}

const results = (item: z.ZodType) => z.union([item, z.object({ results: z.array(item) })]);

const plainText = { "text/plain": { schema: { type: "string" } } };

export const OPERATIONS: OperationTable = {
  "/api/v1/health": {
    GET: {
      summary: "Is the server and its database up",
      tag: "Health",
      responses: { 200: { description: "Up.", schema: healthSchema } },
    },
  },
  "/api/v1/evaluate": {
    POST: {
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
  },
  "/api/v1/passes": {
    POST: {
      summary: "Ingest compression-pass receipts",
      description: `One receipt, or \`{"receipts": [...]}\` with up to ${MAX_PASS_BATCH}, all or nothing. Idempotent on (chain_id, pass_id).`,
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
  },
  "/api/v1/boundaries": {
    POST: {
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
  },
  "/api/v1/chains": {
    GET: {
      summary: "List chains",
      tag: "Chains",
      query: chainListQuerySchema,
      responses: { 200: { description: "A page of chains.", schema: listOf(chainSummarySchema) } },
    },
  },
  "/api/v1/chains/{chain_id}": {
    GET: {
      summary: "A chain with its passes, boundaries, collapse point and integrity findings",
      tag: "Chains",
      responses: { 200: { description: "The chain.", schema: chainDetailSchema } },
      errors: [404],
    },
  },
  "/api/v1/chains/{chain_id}/events": {
    GET: {
      summary: "Live changes of a chain (server-sent events)",
      description: "`version` once, then `change` whenever a pass or boundary arrives.",
      tag: "Chains",
      responses: {
        200: { description: "An event stream.", media: { "text/event-stream": { schema: { type: "string" } } } },
      },
      errors: [404],
    },
  },
  "/api/v1/exports/chains": {
    GET: {
      summary: "Export the filtered chains as CSV or JSON (streamed)",
      tag: "Chains",
      query: chainExportQuerySchema,
      responses: {
        200: {
          description: "Every matching chain, in list order.",
          media: {
            "text/csv": { schema: { type: "string" } },
            "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/ChainSummary" } } },
          },
        },
      },
    },
  },
  "/api/v1/policies": {
    GET: {
      summary: "List the policies in force",
      tag: "Policies",
      query: policyListQuerySchema,
      responses: { 200: { description: "A page of policies and the default floor.", schema: policyListSchema } },
    },
  },
  "/api/v1/policies/{content_class}": {
    GET: {
      summary: "The policy in force for a content class, with its versions",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      responses: {
        200: { description: "The policy (version 0: the default floor).", schema: policyWithVersionsSchema },
      },
      errors: [422],
    },
    PUT: {
      summary: "Set a content class's floor (a new version)",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      body: policyBodySchema,
      responses: {
        200: { description: "Identical to the version in force; nothing written.", schema: policyWireSchema },
        201: { description: "A new version.", schema: policyWireSchema },
      },
    },
  },
  "/api/v1/policies/{content_class}/recommendation": {
    GET: {
      summary: "Recommended floors for a content class, replayed over its recorded chains",
      description:
        "Each option is a floor with what it would have done to the class's recorded chains: failures caught and missed, healthy chains halted early, and the compression kept. Needs enough recorded chains: otherwise 422 `not_enough_data` with `chains` and `minimum`.",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      responses: { 200: { description: "The floor in force and the options.", schema: recommendationSchema } },
      errors: [422],
    },
  },
  "/api/v1/otlp/v1/traces": {
    POST: {
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
  },
  "/v1/retrieve": {
    POST: {
      summary: "Headroom-compatible retrieve",
      description:
        "Headroom's proxy endpoint, for its MCP server and plugins. Client errors are FastAPI's `{\"detail\": ...}`.",
      tag: "Headroom",
      body: headroomRetrieveRequestSchema,
      responses: { 200: { description: "The original.", schema: headroomRetrieveSchema } },
      errors: [404, 409],
      errorBody: "detail",
    },
  },
  "/v1/retrieve/{hash}": {
    GET: {
      summary: "Headroom-compatible retrieve by path",
      description:
        'A key that is not 12 to 64 hex is a 404, as Headroom answers it. Client errors are `{"detail": ...}`.',
      tag: "Headroom",
      responses: { 200: { description: "The original.", schema: headroomRetrieveSchema } },
      errors: [404, 409],
      errorBody: "detail",
    },
  },
  "/v1/retrieve/tool_call": {
    POST: {
      summary: "Answer a headroom_retrieve tool call",
      description:
        'A miss is still a 200, with `success: false` and the reason in `data`, for the model to read. Client errors are `{"detail": ...}`.',
      tag: "Headroom",
      body: headroomToolCallRequestSchema,
      responses: { 200: { description: "The tool result in the provider's format.", schema: headroomToolCallSchema } },
      errorBody: "detail",
    },
  },
  "/v1/retrieve/stats": {
    GET: {
      summary: "Headroom-compatible store statistics",
      description: "Headroom's fields first, then Floorline's (`backend`).",
      tag: "Headroom",
      responses: { 200: { description: "The store and the last retrievals.", schema: headroomStatsSchema } },
      errorBody: "detail",
    },
  },
  "/api/v1/originals": {
    GET: {
      summary: "Browse cached originals (without their content)",
      tag: "Originals",
      query: originalListQuerySchema,
      responses: { 200: { description: "A page of entries.", schema: listOf(originalSummarySchema) } },
    },
    POST: {
      summary: "Cache an original",
      tag: "Originals",
      body: storeOriginalSchema,
      responses: {
        200: { description: "Already stored and live (deduplicated).", schema: storeResultSchema },
        201: { description: "Stored.", schema: storeResultSchema },
      },
    },
  },
  "/api/v1/originals/{hash}": {
    GET: {
      summary: "Retrieve an original (counts as a retrieval)",
      description:
        "`hash`: the full SHA-256 or a unique prefix of at least 12 hex. `?raw=1` or `Accept: text/plain` for the bare text.",
      tag: "Originals",
      query: originalGetQuerySchema,
      responses: { 200: { description: "The original.", schema: retrievedOriginalSchema, media: plainText } },
      errors: [404, 409, 410, 422],
    },
  },
  "/api/v1/originals/stats": {
    GET: {
      summary: "Store occupancy and counters",
      tag: "Originals",
      query: originalStatsQuerySchema,
      responses: { 200: { description: "Totals and the last hours.", schema: originalStatsSchema } },
    },
  },
  "/api/v1/retrieve": {
    POST: {
      summary: "The headroom_retrieve tool call",
      tag: "Originals",
      body: retrieveRequestSchema,
      responses: { 200: { description: "The original.", schema: retrievedOriginalSchema } },
      errors: [404, 409, 410],
    },
  },
  "/api/v1/traces": {
    GET: {
      summary: "List distilled traces",
      tag: "Traces",
      query: traceListQuerySchema,
      responses: { 200: { description: "A page of traces (without raw nodes).", schema: listOf(traceSummarySchema) } },
    },
    POST: {
      summary: "Distil and store a reasoning trace",
      description: "A VERIFIED_CONCLUSION without a receipt fails closed: 422 `missing_verification_receipt`.",
      tag: "Traces",
      body: traceSubmissionSchema,
      responses: {
        200: { description: "Already stored; nothing written.", schema: traceWireSchema },
        201: { description: "Stored.", schema: traceWireSchema },
      },
      errors: [409],
    },
  },
  "/api/v1/traces/{trace_id}": {
    GET: {
      summary: "A stored trace",
      tag: "Traces",
      responses: { 200: { description: "The trace.", schema: traceWireSchema } },
      errors: [404],
    },
  },
  "/api/v1/measure": {
    POST: {
      summary: "Measure content's density and the facts it kept (stateless)",
      description:
        "Parseability, schema validity, semantic density and the source's facts retained, recoverable or lost, by the documented method (docs/measurement.md). Content that does not parse is a measurement, never an error.",
      tag: "Guard",
      body: measureRequestSchema,
      responses: { 200: { description: "The measurement.", schema: measurementSchema } },
    },
  },
  "/api/v1/traces/compress": {
    POST: {
      summary: "Distil a reasoning trace (stateless)",
      tag: "Traces",
      body: compressRequestSchema,
      responses: {
        200: { description: "The residual, byte for byte as the reference.", schema: compressedResidualSchema },
      },
    },
  },
  "/api/v1/trace-rejections": {
    GET: {
      summary: "Trace submissions refused fail-closed",
      tag: "Traces",
      query: rejectionListQuerySchema,
      responses: { 200: { description: "A page of refusals.", schema: traceRejectionListSchema } },
    },
  },
  "/originals/{hash}/content": {
    GET: {
      summary: "A stored text for the dashboard (not a retrieval)",
      description: "The dashboard's reader: slices with `offset`/`length` (JSON), or the whole text.",
      tag: "Originals",
      query: originalContentQuerySchema,
      responses: { 200: { description: "The text, or a slice of it.", schema: textSliceSchema, media: plainText } },
      errors: [404],
    },
  },
  "/api/v1/webhooks": {
    GET: {
      summary: "List webhooks",
      tag: "Webhooks",
      query: webhookListQuerySchema,
      responses: {
        200: { description: "A page of webhooks (never their secrets).", schema: listOf(webhookWireSchema) },
      },
    },
    POST: {
      summary: "Create a webhook",
      description:
        "Only http(s) URLs; a URL whose host resolves to a private, loopback or link-local address is refused unless the server runs with `FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1`. The secret is in this answer only.",
      tag: "Webhooks",
      body: createWebhookSchema,
      responses: { 201: { description: "Created, with its signing secret.", schema: createdWebhookSchema } },
    },
  },
  "/api/v1/webhooks/{id}": {
    GET: {
      summary: "A webhook",
      tag: "Webhooks",
      responses: { 200: { description: "The webhook.", schema: webhookWireSchema } },
      errors: [404],
    },
    PATCH: {
      summary: "Change a webhook (`active: false` pauses it)",
      tag: "Webhooks",
      body: updateWebhookSchema,
      responses: { 200: { description: "The webhook as changed.", schema: webhookWireSchema } },
      errors: [404],
    },
    DELETE: {
      summary: "Delete a webhook and its pending deliveries",
      tag: "Webhooks",
      responses: { 204: { description: "Deleted." } },
      errors: [404],
    },
  },
  "/api/v1/webhooks/{id}/deliveries": {
    GET: {
      summary: "A webhook's delivery log",
      tag: "Webhooks",
      query: webhookListQuerySchema,
      responses: {
        200: { description: "Deliveries, newest first.", schema: listOf(webhookDeliveryWireSchema) },
      },
      errors: [404],
    },
  },
  "/api/v1/webhooks/{id}/test": {
    POST: {
      summary: "Send a test event to this webhook",
      description: "Queues a `webhook.test` event for this webhook only; see its delivery log for the outcome.",
      tag: "Webhooks",
      responses: { 202: { description: "Queued.", schema: testEventResultSchema } },
      errors: [404],
    },
  },
  "/api/v1/keys": {
    GET: {
      summary: "List API keys (never their secrets)",
      tag: "Access",
      responses: {
        200: { description: "Every key, revoked ones included, on one page.", schema: listOf(apiKeySchema) },
      },
    },
    POST: {
      summary: "Create an API key with scopes",
      tag: "Access",
      body: createKeySchema,
      responses: {
        201: { description: "The key, with its secret this once.", schema: createdApiKeySchema },
      },
    },
  },
  "/api/v1/keys/{id}": {
    DELETE: {
      summary: "Revoke an API key (at once, on every instance)",
      tag: "Access",
      responses: { 200: { description: "The revoked key.", schema: apiKeySchema } },
      errors: [404],
    },
  },
  "/api/v1/operators": {
    GET: {
      summary: "List operators",
      tag: "Access",
      responses: { 200: { description: "Every operator, on one page.", schema: listOf(operatorSchema) } },
    },
    POST: {
      summary: "Create an operator (a dashboard sign-in)",
      tag: "Access",
      body: createOperatorSchema,
      responses: { 201: { description: "The operator.", schema: operatorSchema } },
      errors: [409],
    },
  },
  "/api/v1/operators/{id}": {
    DELETE: {
      summary: "Disable an operator and end their sessions",
      tag: "Access",
      responses: { 200: { description: "The disabled operator.", schema: operatorSchema } },
      errors: [404],
    },
  },
  "/api/v1/session": {
    GET: {
      summary: "Whether auth is on, and who is signed in",
      tag: "Access",
      responses: { 200: { description: "The session.", schema: sessionSchema } },
    },
    POST: {
      summary: "Sign in as an operator",
      description: "Sets the session cookie. Repeated failures from one address are throttled (429).",
      tag: "Access",
      body: signInSchema,
      responses: {
        201: {
          description: "Signed in.",
          schema: signedInSchema,
          headers: { "Set-Cookie": "the session cookie (HttpOnly, SameSite=Lax)" },
        },
      },
      errors: [401, 429],
    },
    DELETE: {
      summary: "Sign out",
      tag: "Access",
      responses: {
        204: { description: "Signed out; the cookie is cleared.", headers: { "Set-Cookie": "the cleared cookie" } },
      },
    },
  },
  "/metrics": {
    GET: {
      summary: "Prometheus metrics of this instance",
      tag: "Metrics",
      responses: {
        200: {
          description: "The text exposition format, version 0.0.4.",
          media: { "text/plain": { schema: { type: "string" } } },
        },
      },
    },
  },
  "/api/v1/openapi.json": {
    GET: {
      summary: "This document",
      tag: "Docs",
      responses: {
        200: {
          description: "The OpenAPI 3.1 document.",
          media: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  },
  "/docs/api": {
    GET: {
      summary: "The API reference page",
      tag: "Docs",
      responses: { 200: { description: "An HTML page.", media: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/docs/api/scalar.js": {
    GET: {
      summary: "The API reference page's script",
      tag: "Docs",
      responses: {
        200: {
          description: "JavaScript, cached for a year.",
          media: { "text/javascript": { schema: { type: "string" } } },
        },
      },
    },
  },
};

/** Tags in the order the reference shows them, with what each covers. */
export const TAGS: { name: string; description: string }[] = [
  { name: "Guard", description: "The stateless collapse guard." },
  { name: "Receipts", description: "Ingest of pass and boundary receipts." },
  { name: "Chains", description: "Chains as recorded: passes, collapse points, integrity." },
  { name: "Policies", description: "Floors per content class, versioned." },
  { name: "Originals", description: "The CCR store of cached originals." },
  { name: "Traces", description: "Distilled reasoning traces." },
  { name: "Headroom", description: 'Headroom-compatible retrieval, answering errors as `{"detail": ...}`.' },
  { name: "Access", description: "API keys, operators and their sign-in sessions." },
  { name: "Webhooks", description: "Alerts pushed to your endpoints, signed, retried for 24 hours." },
  { name: "Metrics", description: "Prometheus metrics." },
  { name: "Health", description: "Liveness of the server and its database." },
  { name: "Docs", description: "This reference." },
];
