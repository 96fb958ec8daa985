// observeOpenAICompaction with the real OpenAIResponsesCompactionSession (@openai/agents) and
// the real openai client, pointed at a local HTTP server that answers POST /v1/responses/compact
// as the Responses API documents it (CompactedResponse: object "response.compaction", output
// items with an encrypted `compaction` item, usage), the shapes of the openai package's types.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MemorySession, OpenAIResponsesCompactionSession } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer, receiptsIn } from "../fake-server";
import { sdk } from "../load";
import { openaiAgents, until } from "./dist";

const ENCRYPTED = "gAAAAABo".padEnd(600, "x7Q");
let api: { url: string; requests: Array<{ path: string; body: Record<string, unknown> }>; close(): Promise<void> };
let floorline: FakeServer;

beforeAll(async () => {
  const requests: Array<{ path: string; body: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "cmp_1",
          object: "response.compaction",
          created_at: 1767225600,
          output: [
            {
              id: "msg_u1",
              type: "message",
              role: "user",
              status: "completed",
              content: [{ type: "input_text", text: "Plan the migration." }],
            },
            { id: "cmp_item_1", type: "compaction", encrypted_content: ENCRYPTED },
          ],
          usage: {
            input_tokens: 900,
            output_tokens: 150,
            total_tokens: 1050,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  api = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
  floorline = await fakeServer();
});
afterAll(async () => {
  await api.close();
  await floorline.close();
});

const history = [
  { type: "message" as const, role: "user" as const, content: "Plan the migration." },
  ...Array.from({ length: 6 }, (_, i) => ({
    type: "message" as const,
    role: "assistant" as const,
    status: "completed" as const,
    content: [
      {
        type: "output_text" as const,
        text: `Step ${i + 1}: move table t${i} to the new cluster after the ${i}:00 backup.`,
      },
    ],
  })),
];

describe("observeOpenAICompaction", () => {
  it("records a compaction as an opaque pass: item counts and sizes before and after, the items before cached", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const underlyingSession = new MemorySession();
    const session = openaiAgents.observeOpenAICompaction(
      fl,
      new OpenAIResponsesCompactionSession({
        client: new OpenAI({ apiKey: "test", baseURL: api.url, maxRetries: 0 }),
        underlyingSession,
        model: "gpt-5.1",
        compactionMode: "input",
      }),
      { chainId: "agent-run-3" },
    );
    await session.addItems(history);
    const result = await session.runCompaction({ force: true });
    expect(result).not.toBeNull();
    expect(api.requests[0]?.path).toBe("/v1/responses/compact");
    const after = await session.getItems();
    // The session did its own work: its items are now the compacted ones.
    expect(after.map((i) => i.type)).toEqual(["message", "compaction"]);

    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "agent-run-3"));
    await fl.close();
    const [receipt] = receiptsIn(floorline.seen).filter((r) => r.chain_id === "agent-run-3");
    expect(receipt).toMatchObject({
      pass_id: "agent-run-3.p1",
      content_class: "openai-agents",
      current_size_bytes: Buffer.byteLength(JSON.stringify(after)),
      semantic_density_score: 1,
    });
    expect(receipt?.current_content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt?.metadata).toMatchObject({
      framework: "openai-agents",
      items_before: 7,
      items_after: 2,
      content: "opaque",
      density_measured: false,
      inputTokens: 900,
    });
    const original = floorline.seen.find((s) => s.path === "/api/v1/originals")?.body as Record<string, unknown>;
    expect(String(original.original)).toContain("move table t5 to the new cluster");
    expect((receipt?.metadata as { input_size_bytes?: number } | undefined)?.input_size_bytes).toBe(
      Buffer.byteLength(String(original.original)),
    );
  });

  it("records nothing when no compaction runs, and a session it cannot read still compacts", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const session = openaiAgents.observeOpenAICompaction(
      fl,
      new OpenAIResponsesCompactionSession({
        client: new OpenAI({ apiKey: "test", baseURL: api.url, maxRetries: 0 }),
        model: "gpt-5.1",
        compactionMode: "input",
        shouldTriggerCompaction: () => false,
      }),
      { chainId: "agent-run-4" },
    );
    await session.addItems(history);
    expect(await session.runCompaction()).toBeNull();
    await fl.close();
    expect(receiptsIn(floorline.seen).filter((r) => r.chain_id === "agent-run-4")).toEqual([]);
    const odd = {
      runCompaction: async () => ({ usage: {} }),
      getItems: async () => Promise.reject(new Error("disk gone")),
    };
    expect(openaiAgents.observeOpenAICompaction(fl, odd, { chainId: "x" })).toBe(odd);
    await expect(odd.runCompaction()).resolves.toEqual({ usage: {} });
  });
});
