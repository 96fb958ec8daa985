// The routes of chains as recorded.
import { defineRoute } from "../http/contract";
import { chainDetailSchema, chainExportQuerySchema, chainListQuerySchema, chainSummarySchema } from "../schemas/chains";
import { listOf } from "../schemas/common";
import { chainFactPageSchema, chainFactQuerySchema } from "../schemas/facts";

export const CHAIN_ROUTES = {
  list: defineRoute("/api/v1/chains", {
    GET: {
      scope: "read",
      summary: "List chains",
      tag: "Chains",
      query: chainListQuerySchema,
      responses: { 200: { description: "A page of chains.", schema: listOf(chainSummarySchema) } },
    },
  }),
  detail: defineRoute("/api/v1/chains/{chain_id}", {
    GET: {
      scope: "read",
      summary: "A chain with its passes, boundaries, collapse point and integrity findings",
      tag: "Chains",
      responses: { 200: { description: "The chain.", schema: chainDetailSchema } },
      errors: [404],
    },
  }),
  events: defineRoute("/api/v1/chains/{chain_id}/events", {
    GET: {
      scope: "read",
      summary: "Live changes of a chain (server-sent events)",
      description:
        "`version` once, then `change` whenever a pass or boundary arrives. 429 with `Retry-After` past the server's stream limit or the caller's own share of it.",
      tag: "Chains",
      responses: {
        200: { description: "An event stream.", media: { "text/event-stream": { schema: { type: "string" } } } },
      },
      errors: [404, 429],
    },
  }),
  facts: defineRoute("/api/v1/chains/{chain_id}/facts", {
    GET: {
      scope: "read",
      summary: "The fate of each fact of a chain's source (the facts ledger)",
      description:
        "Facts by salience, at most the 10,000 heaviest of the source, each with the pass where it was first lost, the pass that brought it back, and the marker whose original states it while the latest pass does not. `fate` filters by the fate at the latest pass folded; `q` finds a piece of the fact's text (any case). Empty for a chain none of whose passes was measured against a source.",
      tag: "Chains",
      query: chainFactQuerySchema,
      responses: { 200: { description: "A page of facts.", schema: chainFactPageSchema } },
      errors: [404],
    },
  }),
  export: defineRoute("/api/v1/exports/chains", {
    GET: {
      scope: "read",
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
  }),
};
