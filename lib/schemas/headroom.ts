// The wire shapes of the Headroom-compatible `/v1/retrieve*` endpoints: the bodies their
// handlers parse and build (lib/originals/headroom/shapes.ts), and the OpenAPI document. Headroom's
// proxy reads its body's fields loosely (a field of the wrong type reads as absent), and so
// do these schemas; only the key is checked, in Headroom's words.
import { z } from "zod";
import { parseRetrieveKey, TOOL_CALL_PROVIDERS } from "../originals/headroom/keys";
import { nonNegativeInt as count } from "./common";

const HEADROOM_MISS_STATUSES = ["missing", "evicted", "expired", "ambiguous"] as const;
const missStatus = z.enum(HEADROOM_MISS_STATUSES);
export type HeadroomMissStatus = (typeof HEADROOM_MISS_STATUSES)[number];

/** A store key as the Headroom paths take it; a refusal's message is Headroom's `detail`. */
export const headroomKeySchema = z
  .string({ error: (issue) => (issue.input == null ? "hash required" : "hash must be a string") })
  .transform((value, ctx) => {
    const key = parseRetrieveKey(value);
    if (key.ok) return key.key;
    ctx.addIssue({ code: "custom", message: key.detail });
    return z.NEVER;
  });

/** FastAPI's error body, as Headroom's proxy answers it; a miss adds `status` and `retryable`. */
export const headroomErrorSchema = z
  .object({
    detail: z.string(),
    status: missStatus.optional(),
    retryable: z.literal(false).optional(),
  })
  .meta({ id: "HeadroomError" });
export type HeadroomError = z.infer<typeof headroomErrorSchema>;

export const headroomRetrieveRequestSchema = z
  .object({ hash: headroomKeySchema.describe("the key: 12 to 64 hex characters, `hash=` allowed") })
  .meta({ id: "HeadroomRetrieveRequest" });

export const headroomRetrieveSchema = z
  .object({
    hash: z.string(),
    original_content: z.string(),
    original_tokens: count.nullable(),
    original_item_count: count.nullable(),
    compressed_item_count: count.nullable(),
    tool_name: z.string().nullable(),
    retrieval_count: count,
  })
  .meta({ id: "HeadroomRetrieved" });
export type HeadroomRetrieved = z.infer<typeof headroomRetrieveSchema>;

export const headroomToolCallRequestSchema = z
  .object({
    tool_call: z
      .record(z.string(), z.unknown())
      .catch({})
      .describe("a `headroom_retrieve` tool call in the provider's format"),
    provider: z
      .string()
      .optional()
      .catch(undefined)
      .meta({
        description: `${TOOL_CALL_PROVIDERS.join(", ")}; anthropic when absent. Another name reads the call as \`{name, input | args}\`.`,
        examples: [...TOOL_CALL_PROVIDERS],
      }),
  })
  .meta({ id: "HeadroomToolCallRequest" });

const toolCallDataSchema = z.union([
  z.object({
    hash: z.string(),
    original_content: z.string(),
    original_item_count: count.nullable(),
    compressed_item_count: count.nullable(),
  }),
  z.object({ error: z.string(), hash: z.string(), status: missStatus, ttl_seconds: count.nullable() }),
]);
export type ToolCallData = z.infer<typeof toolCallDataSchema>;

export const headroomToolCallSchema = z
  .object({
    tool_result: z.record(z.string(), z.unknown()).describe("the tool result in the provider's format"),
    success: z.boolean(),
    data: toolCallDataSchema,
  })
  .meta({ id: "HeadroomToolCallResult" });

export const headroomStatsSchema = z
  .object({
    store: z.object({
      entry_count: count,
      max_entries: count.nullable(),
      default_ttl_seconds: count.nullable(),
      total_original_tokens: count,
      total_compressed_tokens: count,
      total_retrievals: count,
      event_count: count,
      backend: z.object({ type: z.literal("floorline"), max_bytes: count, bytes_used: count }),
    }),
    recent_retrievals: z.array(
      z.object({
        hash: z.string(),
        query: z.null(),
        items_retrieved: count.nullable(),
        total_items: count.nullable(),
        tool_name: z.string().nullable(),
        retrieval_type: z.literal("full"),
        retrieved_at: z.string().describe("RFC 3339, UTC"),
      }),
    ),
  })
  .meta({ id: "HeadroomStoreStats" });
