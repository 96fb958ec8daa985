// The OpenAPI operations of chains as recorded.
import {
  chainDetailSchema,
  chainExportQuerySchema,
  chainListQuerySchema,
  chainSummarySchema,
} from "../../schemas/chains";
import { listOf } from "../../schemas/common";
import type { Operations } from "./spec";

export const CHAINS_OPERATIONS = {
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
      description:
        "`version` once, then `change` whenever a pass or boundary arrives. 429 with `Retry-After` past the server's stream limit or the caller's own share of it.",
      tag: "Chains",
      responses: {
        200: { description: "An event stream.", media: { "text/event-stream": { schema: { type: "string" } } } },
      },
      errors: [404, 429],
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
} satisfies Operations;
