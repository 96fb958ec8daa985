// The wire shapes of Headroom's proxy retrieval endpoints (/v1/retrieve, /v1/retrieve/{hash},
// /v1/retrieve/tool_call, /v1/retrieve/stats; docs/originals.md, "Headroom-compatible
// retrieval"), so Headroom's MCP server, plugins and SDK can use Floorline as their CCR store.
// Headroom answers FastAPI-style (`{"detail": ...}`) rather than with our error envelope; these
// paths keep its style.
import { parseRetrieveKey } from "./keys";
import type { HeadroomError, HeadroomMissStatus, HeadroomRetrieved, ToolCallData } from "../../schemas/headroom";

/** The tool name Headroom injects and its models call. */
export const CCR_TOOL_NAME = "headroom_retrieve";
/** Headroom lists the last 20 retrievals in its stats. */
export const RECENT_RETRIEVALS = 20;

export type MissStatus = Exclude<HeadroomMissStatus, "ambiguous">;

/** An entry found and retrieved, with the counts the store keeps. */
interface RetrievedEntry {
  original: string;
  originalTokens: number | null;
  originalItems: number | null;
  compressedItems: number | null;
  toolName: string | null;
  /** The entry's retrieval count including this retrieval. */
  retrievalCount: number;
}

/** 200 of `POST /v1/retrieve` and `GET /v1/retrieve/{hash}`; `hash` echoes the key asked for. */
export function retrieveResponse(key: string, entry: RetrievedEntry): HeadroomRetrieved {
  return {
    hash: key,
    original_content: entry.original,
    original_tokens: entry.originalTokens,
    original_item_count: entry.originalItems,
    compressed_item_count: entry.compressedItems,
    tool_name: entry.toolName,
    retrieval_count: entry.retrievalCount,
  };
}

/** 404 of a retrieval that found nothing to return: never stored, or stored and gone. */
export function missBody(status: MissStatus, detail: string): HeadroomError {
  return { detail, status, retryable: false };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The hash a `headroom_retrieve` tool call asks for, read as Headroom's `parse_tool_call` reads
 * it: Anthropic `{name, input: {hash}}`, OpenAI `{function: {name, arguments: "<json>"}}`,
 * Google `{functionCall: {name, args}}`, else `{name, input | args}`. Null when it is not such a call.
 */
export function hashFromToolCall(toolCall: unknown, provider: string): string | null {
  if (!isRecord(toolCall)) return null;
  let name: unknown;
  let input: unknown;
  if (provider === "anthropic") {
    name = toolCall.name;
    input = toolCall.input;
  } else if (provider === "openai") {
    const fn = isRecord(toolCall.function) ? toolCall.function : {};
    name = fn.name;
    try {
      input = typeof fn.arguments === "string" ? JSON.parse(fn.arguments) : fn.arguments;
    } catch {
      input = {};
    }
  } else if (provider === "google") {
    const call = isRecord(toolCall.functionCall) ? toolCall.functionCall : {};
    name = call.name;
    input = call.args;
  } else {
    name = toolCall.name;
    input = toolCall.input ?? toolCall.args;
  }
  if (name !== CCR_TOOL_NAME || !isRecord(input)) return null;
  const key = parseRetrieveKey(input.hash);
  return key.ok ? key.key : null;
}

/** `json.dumps(value, indent=2)`: Python's separators with an indent, non-ASCII escaped. */
export function pyJsonIndent2(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The tool result in the provider's own shape, the content being the retrieval data as JSON text. */
export function toolCallResponse(toolCall: Record<string, unknown>, provider: string, data: ToolCallData) {
  const id = typeof toolCall.id === "string" ? toolCall.id : "";
  const content = pyJsonIndent2(data);
  const tool_result =
    provider === "anthropic"
      ? { type: "tool_result", tool_use_id: id, content }
      : provider === "openai"
        ? { role: "tool", tool_call_id: id, content }
        : { tool_call_id: id, content };
  return { tool_result, success: !("error" in data), data };
}

export interface StoreStats {
  entryCount: number;
  /** Our store is bounded by bytes, not entries. */
  maxEntries: number | null;
  defaultTtlSeconds: number | null;
  totalOriginalTokens: number;
  totalCompressedTokens: number;
  totalRetrievals: number;
  maxBytes: number;
  bytesUsed: number;
}

export interface RecentRetrieval {
  hash: string;
  toolName: string | null;
  originalItems: number | null;
  retrievedAt: Date;
}

/** `GET /v1/retrieve/stats`: Headroom's fields first, then ours. */
export function statsResponse(stats: StoreStats, recent: readonly RecentRetrieval[]) {
  return {
    store: {
      entry_count: stats.entryCount,
      max_entries: stats.maxEntries,
      default_ttl_seconds: stats.defaultTtlSeconds,
      total_original_tokens: stats.totalOriginalTokens,
      total_compressed_tokens: stats.totalCompressedTokens,
      total_retrievals: stats.totalRetrievals,
      event_count: recent.length,
      backend: { type: "floorline", max_bytes: stats.maxBytes, bytes_used: stats.bytesUsed },
    },
    // Floorline retrieves whole originals only, so every event is a full retrieval of all items.
    recent_retrievals: recent.slice(0, RECENT_RETRIEVALS).map((r) => ({
      hash: r.hash,
      query: null,
      items_retrieved: r.originalItems,
      total_items: r.originalItems,
      tool_name: r.toolName,
      retrieval_type: "full",
      retrieved_at: r.retrievedAt.toISOString(),
    })),
  };
}
