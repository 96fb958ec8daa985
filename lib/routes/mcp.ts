// The route of the MCP endpoint (docs/mcp.md).
import { defineRoute } from "../http/contract";
import { mcpAnswerSchema, mcpRequestSchema } from "../schemas/mcp";

export const MCP_ROUTES = {
  // A key with either scope may talk to it; each tool called then needs the scopes of the
  // routes it mirrors (lib/mcp/tools.ts `scopesOfCall`).
  mcp: defineRoute("/mcp", {
    POST: {
      scope: "ingest or read",
      summary: "MCP over streamable HTTP (stateless)",
      description:
        "The Model Context Protocol's streamable HTTP transport: JSON-RPC messages in, their answers as JSON. Tools: `floorline_retrieve` (scope `read`), `floorline_check` (`ingest`; with `chain_id` also `read`), `floorline_constraints` and `floorline_chain` (`read`); a call of a tool without its scope is 403 `insufficient_scope`, and `tools/list` lists the tools the credential may call. Send `Accept: application/json, text/event-stream` (else 406). No sessions: GET and DELETE are 405.",
      tag: "MCP",
      body: mcpRequestSchema,
      responses: {
        200: { description: "The answers to the requests in the body.", schema: mcpAnswerSchema },
        202: { description: "Only notifications or responses were sent; nothing to answer." },
      },
      errors: [406],
    },
  }),
};
