// MCP over streamable HTTP (docs/mcp.md). Stateless: each POST carries its own
// JSON-RPC messages and gets its answer as JSON, so any instance answers any call and no
// session outlives a request. What the transport would refuse in JSON-RPC's shape (a wrong
// Accept, an unknown protocol version, a body that is no JSON-RPC message) is refused here
// first in the API's, as are the credential, the scope of each tool called, a foreign Origin
// and an oversized body.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { serve } from "@/app/_access/api-route";
import { MCP_ROUTES } from "@/lib/routes/mcp";
import { requestFacts } from "@/app/_access/request-facts";
import { admits, crossSiteRefusal, type Principal } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { isToolName, scopesOfCall } from "@/lib/mcp/tools";
import { mcpServerFor } from "./tools";

/** As many messages as the SDK's transport takes in one batch. */
const MAX_MESSAGES = 100;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The MCP specification asks servers to check Origin against DNS rebinding: a browser page of
 * another site sends one. The Host is checked by the gate; this holds the Origin to it, with
 * or without a cookie (the open mode of a fresh install lends any local page this machine's
 * access).
 */
function refuseForeignOrigin(request: Request): void {
  const facts = requestFacts(request.headers, request.url);
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const forwardedProto = facts.viaTrustedProxy ? request.headers.get("x-forwarded-proto") : null;
  const refusal = crossSiteRefusal(request.method, request.headers, host, forwardedProto);
  if (refusal) throw refusal;
}

function checkHeaders(request: Request): void {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    throw new ApiError("not_acceptable", "An MCP client accepts both application/json and text/event-stream.");
  }
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new ApiError(
      "bad_request",
      `MCP protocol version ${JSON.stringify(version.slice(0, 40))} is not one this server speaks (${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).`,
    );
  }
}

/** The body's messages, each a JSON-RPC message, else the contract's 422. */
function messagesOf(body: unknown): unknown[] {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > MAX_MESSAGES) {
    throw new ApiError("validation_failed", `Send 1 to ${MAX_MESSAGES} JSON-RPC messages.`);
  }
  const issues = messages.flatMap((m, i) =>
    JSONRPCMessageSchema.safeParse(m).success
      ? []
      : [{ path: Array.isArray(body) ? String(i) : "", message: "is not a JSON-RPC 2.0 message" }],
  );
  if (issues.length > 0) throw new ApiError("validation_failed", "The body is not MCP's JSON-RPC.", { issues });
  return messages;
}

/** Each tool called needs the scopes of the routes it mirrors (lib/mcp/tools.ts): 403 before anything runs. */
function checkToolScopes(messages: unknown[], principal: Principal): void {
  for (const message of messages) {
    if (!isObject(message) || message.method !== "tools/call" || !isObject(message.params)) continue;
    const { name, arguments: args } = message.params;
    if (!isToolName(name)) continue;
    for (const scope of scopesOfCall(name, args)) {
      if (!admits(principal, scope)) {
        throw new ApiError(
          "insufficient_scope",
          `The tool ${name}${name === "floorline_check" && scope === "read" ? " with a chain_id" : ""} needs the '${scope}' scope, which this credential does not have.`,
        );
      }
    }
  }
}

export const { GET, POST, PUT, PATCH, DELETE } = serve(MCP_ROUTES.mcp, {
  POST: async (request, _context, principal) => {
    refuseForeignOrigin(request);
    checkHeaders(request);
    const body = await readJson(request);
    checkToolScopes(messagesOf(body), principal);
    let failure: { error: unknown } | undefined;
    const server = mcpServerFor(principal, (error) => {
      failure ??= { error };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: body });
      // The database down or a bug: the contract's 503 (with Retry-After) or 500, not a result.
      if (failure) throw failure.error;
      return response;
    } finally {
      await server.close();
    }
  },
});

// Stateless: no stream of server-initiated messages to open (GET) and no session to end
// (DELETE). MCP's clients take 405 for both.
