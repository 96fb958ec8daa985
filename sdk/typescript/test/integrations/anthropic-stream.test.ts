// observeAnthropic on streamed calls, with the real @anthropic-ai/sdk client against a local
// HTTP server that answers in Server-Sent Events as the Messages API documents them (the event
// shapes of the SDK's own BetaRawMessageStreamEvent: a compaction block's content comes whole in
// its `compaction_delta`; applied context edits come in `message_delta`'s `context_management`).
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer, receiptsIn } from "../fake-server";
import { sdk } from "../load";
import { anthropic, until } from "./dist";
import { type FakeApi, fakeApi, messageEvents } from "./fake-apis";

const LONG_RESULT = Array.from(
  { length: 40 },
  (_, i) => `row ${i}: parcel ${7300 + i} left hub-${i % 5} at ${10 + (i % 12)}:15`,
).join("\n");
const SUMMARY = "Parcels 7300 to 7339 left hub-0 through hub-4; the user wants the ones that left after 20:00.";
const EDIT = { type: "clear_tool_uses_20250919", cleared_input_tokens: 900, cleared_tool_uses: 2 };
const OVERLOADED = { type: "overloaded_error", message: "Overloaded" };
/** The answer to a call that is not streamed. */
const WHOLE = {
  id: "msg_w1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "compaction", content: SUMMARY, encrypted_content: null }],
  stop_reason: "compaction",
  stop_sequence: null,
  usage: { input_tokens: 1500, output_tokens: 40 },
};

const conversation = [
  { role: "user" as const, content: "Which parcels left late?" },
  {
    role: "assistant" as const,
    content: [{ type: "tool_use" as const, id: "tu_1", name: "parcels", input: { since: "10:00" } }],
  },
  { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "tu_1", content: LONG_RESULT }] },
];

/** What the server streams for each request, by the request's `metadata.user_id`. */
function answerFor(user: unknown) {
  const base = { id: "msg_s1", model: "claude-sonnet-4-5", inputTokens: 1500, outputTokens: 40 };
  switch (user) {
    case "edits-and-compaction":
      return {
        events: messageEvents({ ...base, summary: SUMMARY, text: "Four left after 20:00.", appliedEdits: [EDIT] }),
      };
    case "compaction":
      return { events: messageEvents({ ...base, summary: SUMMARY, text: "Four left after 20:00." }) };
    case "fails-after-compaction":
      // The compaction block is finished, then the stream fails before the message ends.
      return { events: messageEvents({ ...base, summary: SUMMARY }).slice(0, 4), error: OVERLOADED };
    case "refused":
      return { json: { type: "error", error: OVERLOADED }, status: 529 };
    default:
      return { events: messageEvents({ ...base, text: "No compaction here." }) };
  }
}

let api: FakeApi;
let floorline: FakeServer;
beforeAll(async () => {
  api = await fakeApi((request) =>
    request.body.stream === true
      ? answerFor((request.body.metadata as { user_id?: string } | undefined)?.user_id)
      : { json: WHOLE },
  );
  floorline = await fakeServer();
});
afterAll(async () => {
  await api.close();
  await floorline.close();
});

function observed(chainId: string) {
  const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
  const client = anthropic.observeAnthropic(fl, new Anthropic({ apiKey: "test", baseURL: api.url, maxRetries: 0 }), {
    chainId,
  });
  return { fl, client };
}

const params = (user: string) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 100,
  messages: conversation,
  metadata: { user_id: user },
});

const receiptsOf = (chainId: string) => receiptsIn(floorline.seen).filter((r) => r.chain_id === chainId);

describe("observeAnthropic, streamed", () => {
  it("beta.messages.stream(): the caller gets the same events and message; each compaction is one pass", async () => {
    const { fl, client } = observed("stream-1");
    const stream = client.beta.messages.stream({
      ...params("edits-and-compaction"),
      betas: ["compact-2026-01-12", "context-management-2025-06-27"],
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }, { type: "compact_20260112" }] },
    });
    const events: unknown[] = [];
    for await (const event of stream) events.push(JSON.parse(JSON.stringify(event)));
    const final = await stream.finalMessage();
    // Unchanged for the caller: every event as the server sent it, and the message they make.
    expect(events).toEqual(answerFor("edits-and-compaction").events);
    expect(final.content.map((b) => b.type)).toEqual(["compaction", "text"]);
    expect(final.content[0]).toMatchObject({ type: "compaction", content: SUMMARY });
    expect(final.context_management?.applied_edits).toEqual([EDIT]);

    await until(() => receiptsOf("stream-1").length >= 2);
    await fl.close();
    const receipts = receiptsOf("stream-1");
    // One pass per compaction: the edit (opaque), then the compaction block (measured).
    expect(receipts.map((r) => r.pass_id)).toEqual(["stream-1.p1", "stream-1.p2"]);
    expect(receipts[0]?.metadata).toMatchObject({
      framework: "anthropic",
      edit: "clear_tool_uses_20250919",
      cleared_input_tokens: 900,
      cleared_tool_uses: 2,
      input_tokens_before: 2400,
      input_tokens_after: 1500,
      message_id: "msg_s1",
      content: "opaque",
    });
    expect(receipts[1]).toMatchObject({ current_size_bytes: Buffer.byteLength(SUMMARY), content_class: "anthropic" });
    expect(receipts[1]?.metadata).toMatchObject({
      block: "compaction",
      density_measured: true,
      summarized_messages: 3,
    });
    const density = receipts[1]?.semantic_density_score as number;
    expect(density).toBeGreaterThan(0);
    expect(density).toBeLessThan(1);
  });

  it("messages.create({ stream: true }): read through tee(), the compaction is recorded once, measured", async () => {
    const { fl, client } = observed("stream-2");
    const { data, response } = await client.messages.create({ ...params("compaction"), stream: true }).withResponse();
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const [left, right] = data.tee();
    const read = async (s: AsyncIterable<unknown>) => {
      const out: unknown[] = [];
      for await (const e of s) out.push(e);
      return out;
    };
    const [a, b] = await Promise.all([read(left), read(right)]);
    expect(a).toEqual(answerFor("compaction").events);
    expect(b).toEqual(a);

    await until(() => receiptsOf("stream-2").length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    await fl.close();
    const receipts = receiptsOf("stream-2");
    expect(receipts.map((r) => r.pass_id)).toEqual(["stream-2.p1"]);
    expect(receipts[0]?.metadata).toMatchObject({ block: "compaction", density_measured: true });
    const original = floorline.seen.find(
      (s) => s.path === "/api/v1/originals" && (s.body as { chain_id?: string }).chain_id === "stream-2",
    )?.body as Record<string, unknown>;
    expect(String(original.original)).toContain("parcel 7339 left hub-4");
  });

  it("a stream that fails reaches the caller as the SDK's error; the compaction it had finished is recorded", async () => {
    const { fl, client } = observed("stream-3");
    const stream = await client.messages.create({ ...params("fails-after-compaction"), stream: true });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of stream) seen.push(event.type);
    })();
    await expect(reading).rejects.toMatchObject({ error: { error: OVERLOADED } });
    expect(seen).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_stop"]);
    await until(() => receiptsOf("stream-3").length >= 1);

    // Refused before any event: the caller gets the error, nothing is recorded.
    await expect(client.messages.create({ ...params("refused"), stream: true })).rejects.toMatchObject({ status: 529 });
    const nothing = observed("stream-4");
    await expect(nothing.client.messages.create({ ...params("plain"), stream: true })).resolves.toBeDefined();
    await new Promise((r) => setTimeout(r, 100));
    await fl.close();
    await nothing.fl.close();
    expect(receiptsOf("stream-3").map((r) => r.pass_id)).toEqual(["stream-3.p1"]);
    expect(receiptsOf("stream-4")).toEqual([]);
  });

  it("a stream without compaction records nothing; asResponse() still gets the body unread", async () => {
    const { fl, client } = observed("stream-5");
    const stream = client.messages.stream(params("plain"));
    expect((await stream.finalMessage()).content).toEqual([{ type: "text", text: "No compaction here." }]);
    // The raw response is the caller's to read, streamed or not: observing must not have read it.
    const raw = await client.messages.create({ ...params("compaction"), stream: true }).asResponse();
    expect(await raw.text()).toContain("compaction_delta");
    const whole = await client.messages.create(params("compaction")).asResponse();
    expect(await whole.json()).toEqual(WHOLE);
    await new Promise((r) => setTimeout(r, 100));
    await fl.close();
    expect(receiptsOf("stream-5")).toEqual([]);
  });
});
