// Long because each framework needs its own local provider and agent around the one app.
// The framework integrations against the real app, on each database (issue 43): what the SDK's
// LangChain middleware, the Claude Code hook, the observed Anthropic client and the observed
// OpenAI Agents session send lands as chains with the ids, classes, sizes, measured densities
// and cached originals their docs promise (docs/frameworks.md). The integrations' own tests use
// a fake Floorline; this one is the app. The model providers are local servers that answer as
// their APIs document (sdk/typescript/test/integrations/fake-apis.ts), for the real clients.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MemorySession, OpenAIResponsesCompactionSession } from "@openai/agents";
import { AIMessage, createAgent, HumanMessage, summarizationMiddleware } from "langchain";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdk } from "../../sdk/typescript/test/load";
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { anthropic, claudeAgent, HOOK, langchain, openaiAgents } from "../../sdk/typescript/test/integrations/dist";
import { type FakeApi, fakeApi, messageEvents } from "../../sdk/typescript/test/integrations/fake-apis";
import { type AppServer, startAppOnOwnDatabase } from "../support/app-server";

const START_TIMEOUT = 300_000;
let app: AppServer;
let stopApp: () => Promise<void>;
const work = mkdtempSync(path.join(tmpdir(), "floorline-frameworks-app-"));

const ROWS = Array.from(
  { length: 40 },
  (_, i) => `row ${i}: order ${9100 + i} shipped to depot-${i % 4} at ${10 + (i % 12)}:00`,
).join("\n");
const SUMMARY = "Orders 9100 to 9139 shipped to depot-0 through depot-3; the user asked for the late ones.";
const STREAMED_SUMMARY = "Orders 9100 to 9139 shipped; four were late, all to depot-2.";
const EDIT = { type: "clear_tool_uses_20250919", cleared_input_tokens: 800, cleared_tool_uses: 3 };
const ENCRYPTED = "gAAAAABo".padEnd(600, "x7Q");
let api: FakeApi;

/** The Messages API (a whole message, or its events when streamed) and the Responses API's compact. */
function providerAnswer(request: { path: string; body: Record<string, unknown> }) {
  if (request.path === "/v1/responses/compact")
    return {
      json: {
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
      },
    };
  const message = { id: "msg_1", model: "claude-sonnet-4-5", inputTokens: 1200, outputTokens: 30 };
  if (request.body.stream === true)
    return {
      events: messageEvents({ ...message, summary: STREAMED_SUMMARY, text: "Four.", appliedEdits: [EDIT] }),
    };
  return {
    json: {
      ...message,
      type: "message",
      role: "assistant",
      content: [{ type: "compaction", content: SUMMARY, encrypted_content: null }],
      stop_reason: "compaction",
      stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 30 },
    },
  };
}

beforeAll(async () => {
  api = await fakeApi(providerAnswer);
  ({ app, stop: stopApp } = await startAppOnOwnDatabase("frameworks", {}, START_TIMEOUT));
}, START_TIMEOUT);

afterAll(async () => {
  await api?.close();
  await stopApp?.();
  rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}, 60_000);

interface ChainDetail {
  chain_id: string;
  passes: {
    pass_id: string;
    pass_number: number;
    content_class: string;
    current_size_bytes: number;
    current_content_hash: string;
    semantic_density_score: number;
    metadata: Record<string, unknown> | null;
    server_checks?: { semantic_density_score: number } | null;
  }[];
}

async function chain(id: string): Promise<ChainDetail | null> {
  const response = await fetch(`${app.base}/api/v1/chains/${encodeURIComponent(id)}`);
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return (await response.json()) as ChainDetail;
}

/** The chain once it has `passes` passes (the client sends in the background), polled for up to a minute. */
async function chainWith(id: string, passes: number): Promise<ChainDetail | null> {
  let stored: ChainDetail | null = null;
  for (let i = 0; i < 240 && (stored?.passes.length ?? 0) < passes; i++) {
    stored = await chain(id);
    if ((stored?.passes.length ?? 0) < passes) await new Promise((r) => setTimeout(r, 250));
  }
  return stored;
}

async function originalsOf(chainId: string): Promise<unknown[]> {
  const response = await fetch(`${app.base}/api/v1/originals?chain_id=${encodeURIComponent(chainId)}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { items: unknown[] }).items;
}

describe("the framework integrations, into the app", () => {
  it("LangChain: a summarization is a measured pass of the thread's chain, its replaced messages cached", async () => {
    const fl = new sdk.Floorline({ url: app.base, scheduledDelayMs: 10, flushOnExit: false });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["Sending the reminder now."] }),
      tools: [],
      middleware: [
        langchain.floorlineMiddleware(fl, { chainId: "lc-thread-1" }),
        summarizationMiddleware({
          model: new FakeListChatModel({ responses: ["Invoice 5501 is paid; 5502 is overdue by 12 days."] }),
          trigger: { messages: 6 },
          keep: { messages: 2 },
        }),
      ],
    });
    await agent.invoke({
      messages: [
        new HumanMessage("Invoice 5501 for ACME, 4,200 EUR, due 2026-03-01: is it paid?"),
        new AIMessage("Invoice 5501 was paid on 2026-02-27 by bank transfer."),
        new HumanMessage("And invoice 5502 for Globex, 1,150 EUR, due 2026-03-05?"),
        new AIMessage("Invoice 5502 is overdue by 12 days; a reminder went out on 2026-03-10."),
        new HumanMessage("Who is the contact at Globex?"),
        new AIMessage("The Globex contact is Dana Whitfield, accounts payable."),
        new HumanMessage("Please chase 5502."),
      ],
    });
    // The middleware records once the agent's call has returned; the client then sends it.
    let stored: ChainDetail | null = null;
    for (let i = 0; i < 240 && !stored?.passes.length; i++) {
      stored = await chain("lc-thread-1");
      if (!stored?.passes.length) await new Promise((r) => setTimeout(r, 250));
    }
    await fl.close();
    expect(stored?.passes.map((p) => [p.pass_id, p.pass_number, p.content_class])).toEqual([
      ["lc-thread-1.p1", 1, "langchain"],
    ]);
    expect(stored?.passes[0]?.metadata).toMatchObject({ framework: "langchain", density_measured: true });
    expect((await originalsOf("lc-thread-1")).length).toBe(1);
  }, 120_000);

  it("Claude Code: the hook's PreCompact and SessionStart make a pass of claude-code:<session>", async () => {
    const transcript = path.join(work, "session.jsonl");
    const base = { sessionId: "cc-1", cwd: "/repo", version: "2.1.0", isSidechain: false };
    const record = (r: unknown) => `${JSON.stringify(r)}\n`;
    writeFileSync(
      transcript,
      [
        {
          ...base,
          type: "user",
          uuid: "u1",
          parentUuid: null,
          message: { role: "user", content: "Rename billing/ to payments/." },
        },
        {
          ...base,
          type: "assistant",
          uuid: "a1",
          parentUuid: "u1",
          message: {
            role: "assistant",
            content: [{ type: "text", text: "31 imports to change; 14 done (module0 to module13)." }],
          },
        },
      ]
        .map(record)
        .join(""),
    );
    const env = { ...process.env, FLOORLINE_URL: app.base, FLOORLINE_SPOOL: path.join(work, "spool") };
    const hook = (input: unknown) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [HOOK, "claude-code"], { env, stdio: ["pipe", "ignore", "ignore"] });
        child.on("exit", resolve);
        child.stdin.end(JSON.stringify(input));
      });
    const session = { session_id: "cc-1", transcript_path: transcript, cwd: "/repo" };
    expect(
      await hook({ ...session, hook_event_name: "PreCompact", trigger: "manual", custom_instructions: null }),
    ).toBe(0);
    appendFileSync(
      transcript,
      record({
        ...base,
        type: "user",
        uuid: "u2",
        parentUuid: null,
        isCompactSummary: true,
        message: { role: "user", content: "Renaming billing/ to payments/: 14 of 31 imports done." },
      }),
    );
    expect(await hook({ ...session, hook_event_name: "SessionStart", source: "compact" })).toBe(0);
    // The hook's background sender delivers (polled for up to three minutes: on a CI machine at
    // a load of 18 on 2 cores, the hooks and the sender took over two in all).
    let stored: ChainDetail | null = null;
    for (let i = 0; i < 720 && !stored?.passes.length; i++) {
      stored = await chain("claude-code:cc-1");
      if (!stored?.passes.length) await new Promise((r) => setTimeout(r, 250));
    }
    expect(stored?.passes.map((p) => [p.pass_id, p.pass_number, p.content_class])).toEqual([
      ["claude-code:cc-1.p1", 1, "claude-code"],
    ]);
    expect(stored?.passes[0]?.metadata).toMatchObject({ framework: "claude-code", trigger: "manual" });
    expect((await originalsOf("claude-code:cc-1")).length).toBe(1);
  }, 300_000);

  it("Anthropic: compaction blocks, whole and streamed, and an applied edit are passes of the conversation", async () => {
    const fl = new sdk.Floorline({ url: app.base, scheduledDelayMs: 10, flushOnExit: false });
    const client = anthropic.observeAnthropic(fl, new Anthropic({ apiKey: "test", baseURL: api.url, maxRetries: 0 }), {
      chainId: "anthropic-conv-1",
    });
    const messages = [
      { role: "user" as const, content: "Which orders shipped late?" },
      {
        role: "assistant" as const,
        content: [{ type: "tool_use" as const, id: "tu_1", name: "orders", input: { since: "10:00" } }],
      },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "tu_1", content: ROWS }] },
    ];
    const whole = await client.beta.messages.create({ model: "claude-sonnet-4-5", max_tokens: 100, messages });
    expect(whole.content[0]).toMatchObject({ type: "compaction", content: SUMMARY });
    // The streamed call: the edit and the compaction block arrive as events.
    const streamed = await client.beta.messages
      .stream({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        messages,
        context_management: { edits: [{ type: "clear_tool_uses_20250919" }, { type: "compact_20260112" }] },
      })
      .finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: "compaction", content: STREAMED_SUMMARY });

    const stored = await chainWith("anthropic-conv-1", 3);
    await fl.close();
    expect(stored?.passes.map((p) => [p.pass_id, p.pass_number, p.content_class])).toEqual([
      ["anthropic-conv-1.p1", 1, "anthropic"],
      ["anthropic-conv-1.p2", 2, "anthropic"],
      ["anthropic-conv-1.p3", 3, "anthropic"],
    ]);
    const [block, edit, streamedBlock] = stored?.passes ?? [];
    for (const [pass, summary] of [
      [block, SUMMARY],
      [streamedBlock, STREAMED_SUMMARY],
    ] as const) {
      expect(pass?.current_size_bytes).toBe(Buffer.byteLength(summary));
      expect(pass?.metadata).toMatchObject({ framework: "anthropic", block: "compaction", density_measured: true });
      // Measured against the forty rows it replaced: some of their facts kept, far from all.
      expect(pass?.semantic_density_score).toBeGreaterThan(0);
      expect(pass?.semantic_density_score).toBeLessThan(1);
    }
    // Applied on the API's side: opaque, its size estimated from the tokens left.
    expect(edit?.current_content_hash).toBe("");
    expect(edit?.semantic_density_score).toBe(1);
    expect(edit?.metadata).toMatchObject({
      edit: "clear_tool_uses_20250919",
      cleared_tool_uses: 3,
      input_tokens_before: 2000,
      input_tokens_after: 1200,
      content: "opaque",
      density_measured: false,
      size_estimated: true,
    });
    const inputBytes = Number(edit?.metadata?.input_size_bytes);
    expect(edit?.current_size_bytes).toBe(Math.round((inputBytes * 1200) / 2000));
    // The three passes replaced the same messages: one cached original, by its SHA-256.
    const originals = (await originalsOf("anthropic-conv-1")) as Array<{ hash: string }>;
    expect(originals.map((o) => o.hash)).toEqual([block?.metadata?.input_sha256]);
    expect(new Set(stored?.passes.map((p) => p.metadata?.input_sha256)).size).toBe(1);
  }, 120_000);

  it("Claude Agent SDK: a compact_boundary of the stream is a measured pass of claude-code:<session>", async () => {
    // A stream of the Agent SDK's documented message types (SDKMessage, sdk.d.ts), replayed: its
    // query() spawns the Claude Code CLI, which cannot run here.
    const session = "7c2e9a14-3b5d-4f6e-8a9b-0c1d2e3f4a5b";
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
    const summary =
      "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe user is fixing order 9117's late shipment; depot-2 was 3 days behind.";
    const text = (n: number, role: "user" | "assistant", content: string) =>
      (role === "user"
        ? { type: "user", message: { role, content }, parent_tool_use_id: null, uuid: id(n), session_id: session }
        : {
            type: "assistant",
            message: {
              id: `msg_${n}`,
              type: "message",
              role,
              model: "claude-sonnet-4-5",
              content: [{ type: "text", text: content }],
              stop_reason: "end_turn",
              stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 10 },
            },
            parent_tool_use_id: null,
            uuid: id(n),
            session_id: session,
          }) as unknown as SDKMessage;
    const stream: SDKMessage[] = [
      text(1, "user", "Why did order 9117 ship late? It went to depot-2 on 2026-11-20."),
      text(2, "assistant", "Depot-2 was 3 days behind after the 2026-11-18 outage; 12 orders waited there."),
      {
        type: "system",
        subtype: "compact_boundary",
        compact_metadata: { trigger: "manual", pre_tokens: 120_000, post_tokens: 3_000 },
        uuid: id(3),
        session_id: session,
      } as SDKMessage,
      { ...(text(4, "user", summary) as object), isSynthetic: true } as SDKMessage,
    ];
    async function* replay() {
      for (const m of stream) yield m;
    }
    const fl = new sdk.Floorline({ url: app.base, scheduledDelayMs: 10, flushOnExit: false });
    const seen: SDKMessage[] = [];
    for await (const m of claudeAgent.observeClaudeAgent(fl, replay())) seen.push(m);
    expect(seen).toEqual(stream);

    const chainId = `claude-code:${session}`;
    const stored = await chainWith(chainId, 1);
    await fl.close();
    expect(stored?.passes.map((p) => [p.pass_id, p.content_class])).toEqual([[`${chainId}.p1`, "claude-code"]]);
    const [pass] = stored?.passes ?? [];
    expect(pass?.current_size_bytes).toBe(Buffer.byteLength(summary));
    expect(pass?.metadata).toMatchObject({ framework: "claude-agent-sdk", trigger: "manual", density_measured: true });
    // Measured (by the SDK, as the server would) against the conversation the stream showed, which is cached.
    expect(pass?.semantic_density_score).toBeGreaterThan(0);
    expect(pass?.semantic_density_score).toBeLessThan(1);
    expect((await originalsOf(chainId)).length).toBe(1);
  }, 120_000);

  it("OpenAI Agents: a session's compaction is an opaque pass with the items before cached", async () => {
    const fl = new sdk.Floorline({ url: app.base, scheduledDelayMs: 10, flushOnExit: false });
    const session = openaiAgents.observeOpenAICompaction(
      fl,
      new OpenAIResponsesCompactionSession({
        client: new OpenAI({ apiKey: "test", baseURL: `${api.url}/v1`, maxRetries: 0 }),
        underlyingSession: new MemorySession(),
        model: "gpt-5.1",
        compactionMode: "input",
      }),
      { chainId: "openai-run-1" },
    );
    await session.addItems([
      { type: "message", role: "user", content: "Plan the migration." },
      ...Array.from({ length: 6 }, (_, i) => ({
        type: "message" as const,
        role: "assistant" as const,
        status: "completed" as const,
        content: [{ type: "output_text" as const, text: `Step ${i + 1}: move table t${i} after the ${i}:00 backup.` }],
      })),
    ]);
    expect(await session.runCompaction({ force: true })).not.toBeNull();
    const after = await session.getItems();

    const stored = await chainWith("openai-run-1", 1);
    await fl.close();
    expect(stored?.passes.map((p) => [p.pass_id, p.pass_number, p.content_class])).toEqual([
      ["openai-run-1.p1", 1, "openai-agents"],
    ]);
    const [pass] = stored?.passes ?? [];
    // Encrypted: hashed and sized, never measured.
    expect(pass?.current_size_bytes).toBe(Buffer.byteLength(JSON.stringify(after)));
    expect(pass?.current_content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(pass?.semantic_density_score).toBe(1);
    expect(pass?.metadata).toMatchObject({
      framework: "openai-agents",
      items_before: 7,
      items_after: 2,
      content: "opaque",
      density_measured: false,
    });
    expect((await originalsOf("openai-run-1")).length).toBe(1);
  }, 120_000);
});
