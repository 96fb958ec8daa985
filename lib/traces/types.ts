// The trace audit's helpers beside its wire shapes (lib/schemas/traces.ts, where the types are
// derived from the schemas).
import type { TraceConstraints } from "./action-space";

/** How much of a refused node's content is kept. */
export const REJECTED_CONTENT_MAX_BYTES = 4096;

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, bytes: bytes.length };
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so a character is never split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), bytes: bytes.length };
}

export interface ChainTraceConstraints {
  traces: Array<TraceConstraints & { omitted_falsified_paths: number; digest_mismatch: boolean }>;
  truncated: boolean;
}
