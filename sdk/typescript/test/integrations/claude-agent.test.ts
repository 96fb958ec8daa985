// observeClaudeAgent over recorded streams typed with the Claude Agent SDK's own message types
// (SDKMessage, SDKCompactBoundaryMessage from @anthropic-ai/claude-agent-sdk's sdk.d.ts): its
// query() spawns the Claude Code CLI, which cannot run here, so the stream is replayed.
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer, receiptsIn } from "../fake-server";
import { sdk } from "../load";
import { claudeAgent, until } from "./dist";

const SESSION = "5f1c2a9e-0d4b-4e8a-9c1f-2b3d4e5f6a7b";
const uuid = (n: number) =>
  `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` as `${string}-${string}-${string}-${string}-${string}`;
const SUMMARY =
  "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe user is fixing the flaky test in src/queue.test.ts; the retry delay was raised to 250 ms.";

function user(n: number, text: string, extra: Partial<SDKMessage> = {}): SDKMessage {
  return {
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    uuid: uuid(n),
    session_id: SESSION,
    ...extra,
  } as SDKMessage;
}
function assistant(n: number, text: string): SDKMessage {
  return {
    type: "assistant",
    message: {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    },
    parent_tool_use_id: null,
    uuid: uuid(n),
    session_id: SESSION,
  } as unknown as SDKMessage;
}
const boundary: SDKMessage = {
  type: "system",
  subtype: "compact_boundary",
  compact_metadata: { trigger: "auto", pre_tokens: 155_000, post_tokens: 4_000 },
  uuid: uuid(50),
  session_id: SESSION,
};

const recorded: SDKMessage[] = [
  user(1, "The test src/queue.test.ts fails one run in ten with a timeout after 100 ms."),
  assistant(2, "The retry delay in src/queue.ts is 100 ms; the worker needs 180 ms under load on CI runner ci-7."),
  user(3, "Raise it and rerun 50 times."),
  assistant(4, "Raised to 250 ms; 50 of 50 runs passed on ci-7 and ci-9."),
  boundary,
  user(51, SUMMARY, { isSynthetic: true }),
  assistant(52, "Continuing: the queue test is stable now."),
];

async function* replay(messages: SDKMessage[]): AsyncGenerator<SDKMessage, void> {
  for (const m of messages) yield m;
}

let floorline: FakeServer;
beforeAll(async () => {
  floorline = await fakeServer();
});
afterAll(() => floorline.close());

describe("observeClaudeAgent", () => {
  it("passes every message through unchanged and records the compaction with its summary, measured", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const seen: SDKMessage[] = [];
    for await (const m of claudeAgent.observeClaudeAgent(fl, replay(recorded))) seen.push(m);
    expect(seen).toEqual(recorded);
    expect(seen[4]).toBe(boundary);

    const chainId = `claude-code:${SESSION}`;
    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === chainId));
    await fl.close();
    const [receipt] = receiptsIn(floorline.seen).filter((r) => r.chain_id === chainId);
    expect(receipt).toMatchObject({
      pass_id: `${chainId}.p1`,
      content_class: "claude-code",
      current_size_bytes: Buffer.byteLength(SUMMARY),
    });
    expect(receipt?.metadata).toMatchObject({
      framework: "claude-agent-sdk",
      trigger: "auto",
      pre_tokens: 155_000,
      post_tokens: 4_000,
      density_measured: true,
    });
    const density = receipt?.semantic_density_score as number;
    expect(density).toBeGreaterThan(0);
    expect(density).toBeLessThan(1);
    const original = floorline.seen.find(
      (s) => s.path === "/api/v1/originals" && (s.body as { chain_id: string }).chain_id === chainId,
    )?.body as Record<string, unknown>;
    expect(String(original.original)).toContain("worker needs 180 ms under load on CI runner ci-7");
  });

  it("without the summary in the stream, records the pass with the CLI's sizes, marked estimated", async () => {
    const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
    const other = recorded
      .filter((m) => !(m.type === "user" && m.uuid === uuid(51)))
      .map((m) => ({ ...m, session_id: "s-2" }) as SDKMessage);
    const seen: SDKMessage[] = [];
    for await (const m of claudeAgent.observeClaudeAgent(fl, replay(other), { contentClass: "coding-agent" }))
      seen.push(m);
    expect(seen).toHaveLength(other.length);
    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "claude-code:s-2"));
    await fl.close();
    const [receipt] = receiptsIn(floorline.seen).filter((r) => r.chain_id === "claude-code:s-2");
    expect(receipt).toMatchObject({
      content_class: "coding-agent",
      current_size_bytes: 16_000,
      current_content_hash: "",
    });
    expect(receipt?.metadata).toMatchObject({
      summary: "not in the stream",
      size_estimated: true,
      density_measured: false,
    });
  });

  it("keeps a query's own methods: the stream is observed in place", async () => {
    const fl = new sdk.Floorline({ flushOnExit: false });
    const query = Object.assign(replay(recorded), { interrupt: async () => "interrupted" });
    const observed = claudeAgent.observeClaudeAgent(fl, query);
    expect(observed).toBe(query);
    await expect(observed.interrupt()).resolves.toBe("interrupted");
    const first = await observed.next();
    expect(first.value).toBe(recorded[0]);
  });
});
