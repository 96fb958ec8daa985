// The framework integrations against the real app, on each database (issue 43): what the SDK's
// LangChain middleware and the Claude Code hook send lands as chains with the ids, classes,
// sizes, measured densities and cached originals their docs promise (docs/frameworks.md). The
// integrations' own tests use a fake server; this one is the app.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { AIMessage, createAgent, HumanMessage, summarizationMiddleware } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdk } from "../../sdk/typescript/test/load";
import { HOOK, langchain } from "../../sdk/typescript/test/integrations/dist";
import { type AppServer, startAppOnOwnDatabase } from "../support/app-server";

const START_TIMEOUT = 300_000;
let app: AppServer;
let stopApp: () => Promise<void>;
const work = mkdtempSync(path.join(tmpdir(), "floorline-frameworks-app-"));

beforeAll(async () => {
  ({ app, stop: stopApp } = await startAppOnOwnDatabase("frameworks", {}, START_TIMEOUT));
}, START_TIMEOUT);

afterAll(async () => {
  await stopApp?.();
  rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}, 60_000);

interface ChainDetail {
  chain_id: string;
  passes: {
    pass_id: string;
    pass_number: number;
    content_class: string;
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
    // The hook's background sender delivers (polled for up to a minute).
    let stored: ChainDetail | null = null;
    for (let i = 0; i < 240 && !stored?.passes.length; i++) {
      stored = await chain("claude-code:cc-1");
      if (!stored?.passes.length) await new Promise((r) => setTimeout(r, 250));
    }
    expect(stored?.passes.map((p) => [p.pass_id, p.pass_number, p.content_class])).toEqual([
      ["claude-code:cc-1.p1", 1, "claude-code"],
    ]);
    expect(stored?.passes[0]?.metadata).toMatchObject({ framework: "claude-code", trigger: "manual" });
    expect((await originalsOf("claude-code:cc-1")).length).toBe(1);
  }, 120_000);
});
