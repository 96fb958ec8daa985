// One retrieval for the Headroom paths: the native retrieve (same counters, same recency),
// answered in Headroom's shape.
import type { RetrievedOriginalWire } from "../../schemas/originals";
import { retrieveResponse } from "./shapes";

export function headroomRetrieveBody(key: string, hit: RetrievedOriginalWire) {
  return retrieveResponse(key, {
    original: hit.original,
    originalTokens: hit.original_tokens,
    originalItems: hit.original_items,
    compressedItems: hit.compressed_items,
    toolName: hit.tool_name,
    retrievalCount: hit.retrieval_count,
  });
}
