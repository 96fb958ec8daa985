import { describe, expect, it } from "vitest";
import { checkAlternateHash, digestOf, headroomKey, parseRetrieveKey } from "@/lib/originals/headroom/keys";
import {
  hashFromToolCall,
  missBody,
  pyJsonIndent2,
  retrieveResponse,
  statsResponse,
  toolCallResponse,
} from "@/lib/originals/headroom/shapes";

describe("keys", () => {
  it("match the published digests", () => {
    // hashlib.md5(b"hello").hexdigest()[:24], as Headroom's diff compressor test pins it.
    expect(headroomKey("hello", "md5")).toBe("5d41402abc4b2a76b9719d91");
    // BLAKE3 test vector of the empty input (the BLAKE3 reference implementation).
    expect(digestOf("", "blake3")).toBe("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
    expect(digestOf("abc", "sha256")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(headroomKey("hello world", "blake3")).toHaveLength(24);
  });

  it("accept an alternate key that is the digest or a long enough prefix of it", () => {
    const original = '{"rows": [1, 2, 3]}';
    expect(checkAlternateHash(headroomKey(original, "md5"), original, "md5")).toBeNull();
    expect(checkAlternateHash(digestOf(original, "blake3"), original, "blake3")).toBeNull();
    expect(checkAlternateHash(digestOf(original, "blake3").slice(0, 12).toUpperCase(), original, "blake3")).toBeNull();
    expect(checkAlternateHash(headroomKey(original, "sha256"), original, "md5")).toMatch(
      /is not the md5 of the original/,
    );
    expect(checkAlternateHash(headroomKey(original, "md5").slice(0, 8), original, "md5")).toMatch(/12 to 64 hex/);
    expect(checkAlternateHash(`${digestOf(original, "md5")}00`, original, "md5")).toMatch(/is not the md5/);
  });
});

describe("retrieve shapes", () => {
  it("answers with Headroom's field names, echoing the key asked for", () => {
    expect(
      retrieveResponse("abcdefabcdef", {
        original: "[1,2]",
        originalTokens: 12,
        originalItems: 2,
        compressedItems: 1,
        toolName: "search",
        retrievalCount: 3,
      }),
    ).toEqual({
      hash: "abcdefabcdef",
      original_content: "[1,2]",
      original_tokens: 12,
      original_item_count: 2,
      compressed_item_count: 1,
      tool_name: "search",
      retrieval_count: 3,
    });
    expect(missBody("evicted", "gone")).toEqual({ detail: "gone", status: "evicted", retryable: false });
  });

  it("reads keys like the native retrieve, and says 'hash required' for none", () => {
    expect(parseRetrieveKey(undefined)).toEqual({ ok: false, detail: "hash required" });
    expect(parseRetrieveKey("")).toEqual({ ok: false, detail: "hash required" });
    expect(parseRetrieveKey("hash=ABCDEFABCDEF")).toEqual({ ok: true, key: "abcdefabcdef" });
    expect(parseRetrieveKey("xyz")).toMatchObject({ ok: false });
    expect(parseRetrieveKey(42)).toEqual({ ok: false, detail: "hash must be a string" });
  });
});

describe("tool calls", () => {
  const hash = "0123456789abcdef01234567";
  it("reads each provider's format", () => {
    expect(hashFromToolCall({ id: "toolu_1", name: "headroom_retrieve", input: { hash } }, "anthropic")).toBe(hash);
    expect(
      hashFromToolCall(
        {
          id: "call_1",
          type: "function",
          function: { name: "headroom_retrieve", arguments: JSON.stringify({ hash }) },
        },
        "openai",
      ),
    ).toBe(hash);
    expect(hashFromToolCall({ functionCall: { name: "headroom_retrieve", args: { hash } } }, "google")).toBe(hash);
  });

  it("refuses other tools, malformed arguments and bad keys", () => {
    expect(hashFromToolCall({ name: "other", input: { hash } }, "anthropic")).toBeNull();
    expect(hashFromToolCall({ function: { name: "headroom_retrieve", arguments: "{oops" } }, "openai")).toBeNull();
    expect(hashFromToolCall({ name: "headroom_retrieve", input: { hash: "zz" } }, "anthropic")).toBeNull();
    expect(hashFromToolCall({ name: "headroom_retrieve", input: { hash } }, "openai")).toBeNull();
    expect(hashFromToolCall("nope", "anthropic")).toBeNull();
  });

  it("answers in the provider's tool-result shape with the data as indented JSON text", () => {
    const data = { hash, original_content: "café", original_item_count: 2, compressed_item_count: 1 };
    const anthropic = toolCallResponse({ id: "toolu_1" }, "anthropic", data);
    expect(anthropic).toEqual({
      tool_result: { type: "tool_result", tool_use_id: "toolu_1", content: pyJsonIndent2(data) },
      success: true,
      data,
    });
    expect(anthropic.tool_result.content).toBe(
      `{\n  "hash": "${hash}",\n  "original_content": "caf\\u00e9",\n  "original_item_count": 2,\n  "compressed_item_count": 1\n}`,
    );
    const miss = { error: "gone", hash, status: "expired" as const, ttl_seconds: 60 };
    expect(toolCallResponse({ id: "call_1" }, "openai", miss)).toEqual({
      tool_result: { role: "tool", tool_call_id: "call_1", content: pyJsonIndent2(miss) },
      success: false,
      data: miss,
    });
  });
});

describe("stats", () => {
  it("has Headroom's store fields and recent retrievals", () => {
    const body = statsResponse(
      {
        entryCount: 2,
        maxEntries: null,
        defaultTtlSeconds: null,
        totalOriginalTokens: 100,
        totalCompressedTokens: 10,
        totalRetrievals: 4,
        maxBytes: 1024,
        bytesUsed: 512,
      },
      [{ hash: "abc", toolName: "t", originalItems: 5, retrievedAt: new Date("2026-01-01T00:00:00Z") }],
    );
    expect(body.store).toMatchObject({
      entry_count: 2,
      max_entries: null,
      default_ttl_seconds: null,
      total_original_tokens: 100,
      total_compressed_tokens: 10,
      total_retrievals: 4,
    });
    expect(body.recent_retrievals).toEqual([
      {
        hash: "abc",
        query: null,
        items_retrieved: 5,
        total_items: 5,
        tool_name: "t",
        retrieval_type: "full",
        retrieved_at: "2026-01-01T00:00:00.000Z",
      },
    ]);
  });
});
