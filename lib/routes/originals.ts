// The routes of cached originals, with the Headroom-compatible retrieval.
import { defineRoute } from "../http/contract";
import { z } from "zod";
import { listOf } from "../schemas/common";
import {
  headroomRetrieveRequestSchema,
  headroomRetrieveSchema,
  headroomStatsSchema,
  headroomToolCallRequestSchema,
  headroomToolCallSchema,
} from "../schemas/headroom";
import {
  clearResultSchema,
  deleteResultSchema,
  originalClearQuerySchema,
  originalContentQuerySchema,
  originalCountQuerySchema,
  originalCountSchema,
  originalDeleteQuerySchema,
  originalGetQuerySchema,
  peekedOriginalSchema,
  recordRetrievalSchema,
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
import { plainText } from "./shapes";

// Deletions are `admin`, as every deletion is (a key that only stores cannot erase what an
// operator may need to see); a client's report of a retrieval it served replaces the entry's
// metadata, as storing it does: `ingest`.
export const ORIGINAL_ROUTES = {
  list: defineRoute("/api/v1/originals", {
    GET: {
      scope: "read",
      summary: "Browse cached originals (without their content)",
      tag: "Originals",
      query: originalListQuerySchema,
      responses: { 200: { description: "A page of entries.", schema: listOf(originalSummarySchema) } },
    },
    POST: {
      scope: "ingest",
      summary: "Cache an original",
      description:
        "Storing a live original again deduplicates it; its `metadata` then replaces the entry's only for a caller with the `read` scope.",
      tag: "Originals",
      body: storeOriginalSchema,
      responses: {
        200: { description: "Already stored and live (deduplicated).", schema: storeResultSchema },
        201: { description: "Stored.", schema: storeResultSchema },
      },
    },
    DELETE: {
      scope: "admin",
      summary: "Clear a tenant's originals",
      description:
        "Every live entry of `tenant` (required; `tenant=` for the default one) becomes a tombstone, in one transaction. Other tenants keep theirs.",
      tag: "Originals",
      query: originalClearQuerySchema,
      responses: { 200: { description: "What was deleted.", schema: clearResultSchema } },
    },
  }),
  detail: defineRoute("/api/v1/originals/{hash}", {
    GET: {
      scope: "read",
      summary: "Retrieve an original (counts as a retrieval)",
      description:
        '`hash`: the full SHA-256 or a unique prefix of at least 12 hex, in `tenant` (default `""`). `?raw=1` or `Accept: text/plain` for the bare text. `?peek=1` counts nothing and keeps recency.',
      tag: "Originals",
      query: originalGetQuerySchema,
      responses: {
        200: {
          description: "The original (with `?peek=1`, also `compressed`, and nothing counted).",
          schema: z.union([retrievedOriginalSchema, peekedOriginalSchema]),
          media: plainText,
        },
      },
      errors: [404, 409, 410, 422],
    },
    DELETE: {
      scope: "admin",
      summary: "Delete an original",
      description:
        'The entry of `tenant` (default `""`) becomes a tombstone: `410 evicted`, its reason the deletion. Deleting again is `deleted: false`.',
      tag: "Originals",
      query: originalDeleteQuerySchema,
      responses: { 200: { description: "The outcome.", schema: deleteResultSchema } },
      errors: [404, 409, 422],
    },
  }),
  retrievals: defineRoute("/api/v1/originals/{hash}/retrievals", {
    POST: {
      scope: "ingest",
      summary: "Record a retrieval the client served itself",
      description:
        "After a peek: counts a retrieval and refreshes recency as `GET` does, without the text. `metadata` replaces the entry's. A caller without the `read` scope is answered 404 `unknown_hash` for every key, and nothing is counted or written (the summary, metadata and prefix are the original's).",
      tag: "Originals",
      body: recordRetrievalSchema,
      responses: { 200: { description: "The entry's summary.", schema: originalSummarySchema } },
      errors: [404, 409, 410],
    },
  }),
  count: defineRoute("/api/v1/originals/count", {
    GET: {
      scope: "read",
      summary: "Count cached originals",
      description:
        "The list's filters (`tenant`, `status`, `key`, ...), without paging: how many entries and their bytes.",
      tag: "Originals",
      query: originalCountQuerySchema,
      responses: { 200: { description: "The count.", schema: originalCountSchema } },
    },
  }),
  stats: defineRoute("/api/v1/originals/stats", {
    GET: {
      scope: "read",
      summary: "Store occupancy and counters",
      tag: "Originals",
      query: originalStatsQuerySchema,
      responses: { 200: { description: "Totals and the last hours.", schema: originalStatsSchema } },
    },
  }),
  retrieve: defineRoute("/api/v1/retrieve", {
    POST: {
      scope: "read",
      summary: "The headroom_retrieve tool call",
      tag: "Originals",
      body: retrieveRequestSchema,
      responses: { 200: { description: "The original.", schema: retrievedOriginalSchema } },
      errors: [404, 409, 410],
    },
  }),
  // Headroom-compatible retrieval at the root, where Headroom's clients look for their proxy.
  headroomRetrieve: defineRoute("/v1/retrieve", {
    POST: {
      scope: "read",
      summary: "Headroom-compatible retrieve",
      description:
        "Headroom's proxy endpoint, for its MCP server and plugins. Client errors are FastAPI's `{\"detail\": ...}`.",
      tag: "Headroom",
      body: headroomRetrieveRequestSchema,
      responses: { 200: { description: "The original.", schema: headroomRetrieveSchema } },
      errors: [404, 409],
      errorBody: "detail",
    },
  }),
  headroomRetrieveByPath: defineRoute("/v1/retrieve/{hash}", {
    GET: {
      scope: "read",
      summary: "Headroom-compatible retrieve by path",
      description:
        'A key that is not 12 to 64 hex is a 404, as Headroom answers it. Client errors are `{"detail": ...}`.',
      tag: "Headroom",
      responses: { 200: { description: "The original.", schema: headroomRetrieveSchema } },
      errors: [404, 409],
      errorBody: "detail",
    },
  }),
  headroomToolCall: defineRoute("/v1/retrieve/tool_call", {
    POST: {
      scope: "read",
      summary: "Answer a headroom_retrieve tool call",
      description:
        'A miss is still a 200, with `success: false` and the reason in `data`, for the model to read. Client errors are `{"detail": ...}`.',
      tag: "Headroom",
      body: headroomToolCallRequestSchema,
      responses: { 200: { description: "The tool result in the provider's format.", schema: headroomToolCallSchema } },
      errorBody: "detail",
    },
  }),
  headroomStats: defineRoute("/v1/retrieve/stats", {
    GET: {
      scope: "read",
      summary: "Headroom-compatible store statistics",
      description: "Headroom's fields first, then Floorline's (`backend`).",
      tag: "Headroom",
      responses: { 200: { description: "The store and the last retrievals.", schema: headroomStatsSchema } },
      errorBody: "detail",
    },
  }),
  // `read`, like the pages that link here: the operator's session cookie or a key with `read`.
  content: defineRoute("/originals/{hash}/content", {
    GET: {
      scope: "read",
      summary: "A stored text for the dashboard (not a retrieval)",
      description: "The dashboard's reader: slices with `offset`/`length` (JSON), or the whole text.",
      tag: "Originals",
      query: originalContentQuerySchema,
      responses: { 200: { description: "The text, or a slice of it.", schema: textSliceSchema, media: plainText } },
      errors: [404],
    },
  }),
};
