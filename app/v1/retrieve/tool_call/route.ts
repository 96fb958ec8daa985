// Headroom's `POST /v1/retrieve/tool_call`: a `headroom_retrieve` tool call in the provider's
// format in, the tool result in that provider's format out.
import { getOriginalsConfig } from "@/db/queries/originals/shared";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { ApiError } from "@/lib/errors";
import { RETRIEVAL_HEADERS } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { detail, missFrom, parseHeadroom } from "@/lib/originals/headroom/http";
import { CCR_TOOL_NAME, hashFromToolCall, toolCallResponse } from "@/lib/originals/headroom/shapes";
import { headroomToolCallRequestSchema, type ToolCallData } from "@/lib/schemas/headroom";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.headroomToolCall, {
  POST: async (request) => {
    const body = parseHeadroom(headroomToolCallRequestSchema, await readJson(request), { body: true });
    if (body instanceof Response) return body;
    const { tool_call: toolCall, provider = "anthropic" } = body;
    const key = hashFromToolCall(toolCall, provider);
    if (key === null) return detail(400, `Invalid tool call or not a ${CCR_TOOL_NAME} call`);
    let data: ToolCallData;
    try {
      const hit = await retrieveOriginal(key);
      data = {
        hash: key,
        original_content: hit.original,
        original_item_count: hit.original_items,
        compressed_item_count: hit.compressed_items,
      };
    } catch (error) {
      const miss = error instanceof ApiError ? missFrom(error) : null;
      if (!miss) throw error;
      data = {
        error: (error as ApiError).message,
        hash: key,
        status: miss.status_word,
        ttl_seconds: getOriginalsConfig().defaultTtlSeconds,
      };
    }
    return Response.json(toolCallResponse(toolCall, provider, data), { headers: RETRIEVAL_HEADERS });
  },
});
