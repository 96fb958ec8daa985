// The OpenAPI operations of cached originals, with the Headroom-compatible retrieval.
import { listOf } from "../../schemas/common";
import {
  headroomRetrieveRequestSchema,
  headroomRetrieveSchema,
  headroomStatsSchema,
  headroomToolCallRequestSchema,
  headroomToolCallSchema,
} from "../../schemas/headroom";
import {
  originalContentQuerySchema,
  originalGetQuerySchema,
  originalListQuerySchema,
  originalStatsQuerySchema,
  originalStatsSchema,
  originalSummarySchema,
  retrievedOriginalSchema,
  retrieveRequestSchema,
  storeOriginalSchema,
  storeResultSchema,
  textSliceSchema,
} from "../../schemas/originals";
import { plainText, type Operations } from "./spec";

export const ORIGINALS_OPERATIONS = {
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
} satisfies Operations;
