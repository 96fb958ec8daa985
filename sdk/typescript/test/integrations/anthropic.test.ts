// observeAnthropic with the real @anthropic-ai/sdk client, pointed at a local HTTP server that
// answers as the Messages API documents (context_management.applied_edits, compaction blocks:
// the shapes of BetaContextManagementResponse and BetaCompactionBlock in the SDK's own types).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdk } from "../load";
import { fakeServer, type FakeServer, receiptsIn } from "../fake-server";
import { anthropic, until } from "./dist";

const LONG_RESULT = Array.from(
  { length: 40 },
  (_, i) => `row ${i}: order ${9100 + i} shipped to depot-${i % 4} at ${10 + i}:00`,
).join("\n");
const SUMMARY =
  "Orders 9100 to 9139 shipped to depot-0 through depot-3 between 10:00 and 49:00; the user asked for the late ones.";

let api: { url: string; bodies: unknown[]; betas: unknown[]; close(): Promise<void> };
let floorline: FakeServer;

function message(extra: Record<string, unknown>) {
  return {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "Done." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1200, output_tokens: 12 },
    ...extra,
  };
}

beforeAll(async () => {
  const bodies: unknown[] = [];
  const betas: unknown[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const body = JSON.parse(text) as { context_management?: unknown };
      bodies.push(body);
      betas.push(req.headers["anthropic-beta"]);
      const edits = body.context_management !== undefined;
      const answer = edits
        ? message({
            context_management: {
              applied_edits: [{ type: "clear_tool_uses_20250919", cleared_input_tokens: 800, cleared_tool_uses: 3 }],
            },
          })
        : message({
            content: [
              { type: "compaction", content: SUMMARY, encrypted_content: null },
              { type: "text", text: "Here are the late orders." },
            ],
          });
      res.writeHead(200, { "content-type": "application/json", "request-id": "req_1" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  api = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    betas,
    close: () => new Promise((r) => server.close(() => r())),
  };
  floorline = await fakeServer();
});
afterAll(async () => {
  await api.close();
  await floorline.close();
});

const conversation = [
  { role: "user" as const, content: "Which orders shipped late?" },
  {
    role: "assistant" as const,
    content: [{ type: "tool_use" as const, id: "tu_1", name: "orders", input: { since: "10:00" } }],
  },
  { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "tu_1", content: LONG_RESULT }] },
];

describe("observeAnthropic", () => {
  it("records a compaction block as a pass measured against the messages it replaced, and caches them", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const client = anthropic.observeAnthropic(fl, new Anthropic({ apiKey: "test", baseURL: api.url, maxRetries: 0 }), {
      chainId: "conv-7",
    });
    const response = await client.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      messages: conversation,
    });
    // The answer is the API's, untouched.
    expect(response.content[1]).toEqual({ type: "text", text: "Here are the late orders." });
    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "conv-7"));
    await fl.close();
    const [receipt] = receiptsIn(floorline.seen).filter((r) => r.chain_id === "conv-7");
    expect(receipt).toMatchObject({
      pass_id: "conv-7.p1",
      pass_number: 1,
      content_class: "anthropic",
      current_size_bytes: Buffer.byteLength(SUMMARY),
    });
    expect(receipt?.input_content_hash).toBeUndefined();
    const meta = receipt?.metadata as Record<string, unknown>;
    expect(meta.density_measured).toBe(true);
    const density = receipt?.semantic_density_score as number;
    // Measured: the summary keeps some of the forty rows' facts, far from all of them.
    expect(density).toBeGreaterThan(0);
    expect(density).toBeLessThan(1);
    const original = floorline.seen.find((s) => s.path === "/api/v1/originals")?.body as Record<string, unknown>;
    expect(original.pass_id).toBe("conv-7.p1");
    expect(String(original.original)).toContain("order 9139 shipped to depot-3");
    expect(meta.input_size_bytes).toBe(Buffer.byteLength(String(original.original)));
  });

  it("records beta context edits as an opaque pass with the cleared tokens and tool uses", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const client = anthropic.observeAnthropic(fl, new Anthropic({ apiKey: "test", baseURL: api.url, maxRetries: 0 }), {
      chainId: "conv-8",
      contentClass: "support-agent",
    });
    const { data, response } = await client.beta.messages
      .create({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        messages: conversation,
        betas: ["context-management-2025-06-27"],
        context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
      })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.context_management?.applied_edits[0]).toMatchObject({ cleared_tool_uses: 3 });
    // The beta resource's own request, not messages.create's.
    expect(api.betas.at(-1)).toBe("context-management-2025-06-27");
    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "conv-8"));
    await fl.close();
    const [receipt] = receiptsIn(floorline.seen).filter((r) => r.chain_id === "conv-8");
    expect(receipt).toMatchObject({
      content_class: "support-agent",
      current_content_hash: "",
      semantic_density_score: 1,
    });
    expect(receipt?.metadata).toMatchObject({
      edit: "clear_tool_uses_20250919",
      cleared_input_tokens: 800,
      cleared_tool_uses: 3,
      input_tokens_before: 2000,
      input_tokens_after: 1200,
      content: "opaque",
      density_measured: false,
      size_estimated: true,
    });
    const inputBytes = Number((receipt?.metadata as { input_size_bytes?: number } | undefined)?.input_size_bytes);
    expect(inputBytes).toBeGreaterThan(1000);
    expect(receipt?.current_size_bytes).toBe(Math.round((inputBytes * 1200) / 2000));
  });

  it("never throws into the agent: a client without messages, and bad responses, pass through", async () => {
    const fl = new sdk.Floorline({ flushOnExit: false });
    const odd = { messages: { create: () => Promise.resolve("not a message") } };
    expect(anthropic.observeAnthropic(fl, odd, { chainId: "x" })).toBe(odd);
    await expect(odd.messages.create()).resolves.toBe("not a message");
    expect(anthropic.observeAnthropic(fl, null, { chainId: "x" })).toBeNull();
    const failing = { messages: { create: () => Promise.reject(new Error("overloaded")) } };
    anthropic.observeAnthropic(fl, failing, { chainId: "x" });
    await expect(failing.messages.create()).rejects.toThrow("overloaded");
  });
});
