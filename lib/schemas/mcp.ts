// POST /mcp as the OpenAPI document states it: JSON-RPC 2.0 messages of the Model Context
// Protocol (its own specification defines them; the route checks each against the official
// SDK's schema). Loose on purpose: `params`, `result` and `error` are MCP's to define.
import { z } from "zod";

const jsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.int()]).optional(),
    method: z.string().optional().describe("initialize, tools/list, tools/call, notifications/initialized, ..."),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "JsonRpcMessage" });

export const mcpRequestSchema = z.union([jsonRpcMessageSchema, z.array(jsonRpcMessageSchema).min(1).max(100)]);

const jsonRpcResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

export const mcpAnswerSchema = z.union([jsonRpcResponseSchema, z.array(jsonRpcResponseSchema)]);
