// The wire shapes of the Headroom-compatible `/v1/retrieve*` endpoints, for the OpenAPI
// document. Their handlers build these bodies in lib/headroom/shapes.ts; they do not parse
// with zod (Headroom's clients send loose JSON), so these describe answers and accepted bodies.
import { z } from "zod";

const count = z.int().min(0);
const missStatus = z.enum(["missing", "evicted", "expired", "ambiguous"]);

/** FastAPI's error body, as Headroom's proxy answers it; a miss adds `status` and `retryable`. */
export const headroomErrorSchema = z
  .object({
    detail: z.string(),
    status: missStatus.optional(),
    retryable: z.literal(false).optional(),
  })
  .meta({ id: "HeadroomError" });

export const headroomRetrieveRequestSchema = z
  .object({ hash: z.string().describe("the key: 12 to 64 hex characters, `hash=` allowed") })
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

export const headroomToolCallRequestSchema = z
  .object({
    tool_call: z.record(z.string(), z.unknown()).describe("a `headroom_retrieve` tool call in the provider's format"),
    provider: z.enum(["anthropic", "openai", "google"]).optional().describe("anthropic when absent"),
  })
  .meta({ id: "HeadroomToolCallRequest" });

export const headroomToolCallSchema = z
  .object({
    tool_result: z.record(z.string(), z.unknown()).describe("the tool result in the provider's format"),
    success: z.boolean(),
    data: z.union([
      z.object({
        hash: z.string(),
        original_content: z.string(),
        original_item_count: count.nullable(),
        compressed_item_count: count.nullable(),
      }),
      z.object({ error: z.string(), hash: z.string(), status: missStatus, ttl_seconds: count.nullable() }),
    ]),
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
