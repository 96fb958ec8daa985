// `floorline-hook claude-code` as Claude Code runs it: a process per hook call, the hook's JSON
// on stdin. The inputs have the shapes of BaseHookInput, PreCompactHookInput,
// PostCompactHookInput and SessionStartHookInput in @anthropic-ai/claude-agent-sdk's sdk.d.ts
// (the types Anthropic ships for its hooks); the transcript is Claude Code's JSON Lines as it
// writes them (user/assistant records with `message`, a `system` record of subtype
// `compact_boundary`, then the summary as a `user` record with `isCompactSummary: true`), a
// shape Anthropic does not document: it is taken from transcripts as Claude Code writes them.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PostCompactHookInput, PreCompactHookInput, SessionStartHookInput } from "@anthropic-ai/claude-agent-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { fakeServer, receiptsIn } from "../fake-server";
import { HOOK, until } from "./dist";

const work = mkdtempSync(path.join(tmpdir(), "floorline-hook-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SUMMARY =
  "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe user is renaming the billing module; 14 of 31 imports are done.";

const line = (r: unknown) => `${JSON.stringify(r)}\n`;
function transcript(file: string): void {
  const base = { sessionId: "s-1", cwd: "/repo", version: "2.1.0", isSidechain: false };
  writeFileSync(
    file,
    [
      {
        ...base,
        type: "user",
        uuid: "u1",
        parentUuid: null,
        message: { role: "user", content: "Rename billing/ to payments/ across the repo." },
      },
      {
        ...base,
        type: "assistant",
        uuid: "a1",
        parentUuid: "u1",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "Grep", input: { pattern: 'from "../billing' } }],
        },
      },
      {
        ...base,
        type: "user",
        uuid: "u2",
        parentUuid: "a1",
        message: {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: Array.from(
                { length: 31 },
                (_, i) => `src/module${i}.ts:3: import { charge } from "../billing/charge"`,
              ).join("\n"),
            },
          ],
        },
      },
      {
        ...base,
        type: "assistant",
        uuid: "a2",
        parentUuid: "u2",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "31 imports to change; 14 done so far (module0 to module13)." }],
        },
      },
    ]
      .map(line)
      .join(""),
  );
}
function appendSummary(file: string): void {
  const base = { sessionId: "s-1", cwd: "/repo", version: "2.1.0", isSidechain: false };
  appendFileSync(
    file,
    line({
      ...base,
      type: "system",
      subtype: "compact_boundary",
      uuid: "b1",
      parentUuid: null,
      content: "Conversation compacted",
      compactMetadata: { trigger: "auto", preTokens: 155000 },
    }),
  );
  appendFileSync(
    file,
    line({
      ...base,
      type: "user",
      uuid: "u3",
      parentUuid: "b1",
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: "user", content: SUMMARY },
    }),
  );
}

function run(
  argv: string[],
  input: unknown,
  env: Record<string, string>,
): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("exit", (code) => resolve({ code, ms: performance.now() - started, stdout, stderr }));
    child.stdin.end(typeof input === "string" ? input : JSON.stringify(input));
  });
}

/**
 * Runs the hook once: its exit code, what it printed on stdout, and how long its own work took
 * (it says so on stderr when FLOORLINE_HOOK_TIMING is set). Node's start is not the hook's to
 * shorten: about 40 ms on an idle machine, 100 to 450 ms here under the load of the sessions
 * beside it, so the wall-clock time is held only to a bound that a hook waiting on the network
 * would pass.
 */
async function hook(
  input: unknown,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; ms: number; wall: number; stdout: string; stderr: string }> {
  const r = await run([HOOK, "claude-code", ...args], input, { ...env, FLOORLINE_HOOK_TIMING: "1" });
  const own = /floorline-hook: (\d+) ms\n$/.exec(r.stderr);
  return {
    ...r,
    wall: r.ms,
    ms: own ? Number(own[1]) : Number.POSITIVE_INFINITY,
    stderr: r.stderr.replace(/floorline-hook: \d+ ms\n$/, ""),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

const senderDone = (spool: string) => () => !existsSync(path.join(spool, "sender.lock"));

describe("floorline-hook claude-code", () => {
  it("exits 0 silently with the server unreachable, spools the pass, and the next call delivers it", async () => {
    const spool = path.join(work, "spool-1");
    const file = path.join(work, "s-1.jsonl");
    transcript(file);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { FLOORLINE_URL: url, FLOORLINE_SPOOL: spool };
    const base = { session_id: "s-1", transcript_path: file, cwd: "/repo" };

    const pre: PreCompactHookInput = {
      ...base,
      hook_event_name: "PreCompact",
      trigger: "auto",
      custom_instructions: null,
    };
    const first = await hook(pre, [], env);
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr }).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });

    appendSummary(file);
    const start: SessionStartHookInput = { ...base, hook_event_name: "SessionStart", source: "compact" };
    const second = await hook(start, [], env);
    expect(second).toMatchObject({ code: 0, stdout: "" });

    // The background sender made the pass and kept it, the server being away.
    await until(() => readdirSync(path.join(spool, "outbox")).length >= 2 && senderDone(spool)(), 60_000);
    const server = await fakeServer(port);
    try {
      const third = await hook({ ...base, hook_event_name: "Stop", stop_hook_active: false }, [], env);
      expect(third.code).toBe(0);
      await until(
        () => receiptsIn(server.seen).length > 0 && readdirSync(path.join(spool, "outbox")).length === 0,
        60_000,
      );
      await until(senderDone(spool), 60_000);
      const [receipt] = receiptsIn(server.seen);
      expect(receipt).toMatchObject({
        chain_id: "claude-code:s-1",
        pass_id: "claude-code:s-1.p1",
        pass_number: 1,
        content_class: "claude-code",
        current_size_bytes: Buffer.byteLength(SUMMARY),
      });
      expect(receipt?.metadata).toMatchObject({
        framework: "claude-code",
        trigger: "auto",
        summary_from: "transcript",
        density_measured: true,
      });
      const density = receipt?.semantic_density_score as number;
      expect(density).toBeGreaterThan(0);
      expect(density).toBeLessThan(1);
      const original = server.seen.find((s) => s.path === "/api/v1/originals")?.body as Record<string, unknown>;
      expect(String(original.original)).toContain('src/module30.ts:3: import { charge } from "../billing/charge"');
      expect(String(original.original)).not.toContain("isCompactSummary");
    } finally {
      await server.close();
    }
  }, 180_000);

  it("numbers a session's compactions across calls and takes PostCompact's summary and --content-class", async () => {
    const server = await fakeServer();
    const spool = path.join(work, "spool-2");
    const file = path.join(work, "s-2.jsonl");
    transcript(file);
    const env = { FLOORLINE_URL: server.url, FLOORLINE_SPOOL: spool };
    const base = { session_id: "s-2", transcript_path: file, cwd: "/repo" };
    try {
      for (const n of [1, 2]) {
        const pre: PreCompactHookInput = {
          ...base,
          hook_event_name: "PreCompact",
          trigger: "manual",
          custom_instructions: "keep the file list",
        };
        expect((await hook(pre, ["--content-class", "coding-agent"], env)).code).toBe(0);
        const post: PostCompactHookInput = {
          ...base,
          hook_event_name: "PostCompact",
          trigger: "manual",
          compact_summary: `Summary ${n}: 14 of 31 imports renamed.`,
        };
        expect((await hook(post, ["--content-class", "coding-agent"], env)).code).toBe(0);
        await until(() => receiptsIn(server.seen).length === n && senderDone(spool)(), 60_000);
      }
      expect(receiptsIn(server.seen).map((r) => [r.pass_id, r.content_class])).toEqual([
        ["claude-code:s-2.p1", "coding-agent"],
        ["claude-code:s-2.p2", "coding-agent"],
      ]);
      expect(receiptsIn(server.seen)[1]?.metadata).toMatchObject({
        summary_from: "PostCompact",
        custom_instructions: "keep the file list",
      });
    } finally {
      await server.close();
    }
  }, 180_000);

  it("waits for a slow server's answer rather than leaving the pass for a next hook call", async () => {
    // A session's last compaction has no next hook call to send what the outbox keeps.
    const server = await fakeServer();
    server.delayMs = 7_000;
    const spool = path.join(work, "spool-5");
    const file = path.join(work, "s-5.jsonl");
    transcript(file);
    const env = { FLOORLINE_URL: server.url, FLOORLINE_SPOOL: spool };
    const base = { session_id: "s-5", transcript_path: file, cwd: "/repo" };
    try {
      const pre: PreCompactHookInput = {
        ...base,
        hook_event_name: "PreCompact",
        trigger: "auto",
        custom_instructions: null,
      };
      expect((await hook(pre, [], env)).code).toBe(0);
      const post: PostCompactHookInput = {
        ...base,
        hook_event_name: "PostCompact",
        trigger: "auto",
        compact_summary: SUMMARY,
      };
      expect((await hook(post, [], env)).code).toBe(0);
      await until(() => receiptsIn(server.seen).length === 1 && senderDone(spool)(), 90_000);
      expect(readdirSync(path.join(spool, "outbox"))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("exits 0 silently on input it cannot read, and without a server", async () => {
    const env = { FLOORLINE_URL: "http://127.0.0.1:9", FLOORLINE_SPOOL: path.join(work, "spool-3") };
    for (const input of ["not json", "[]", JSON.stringify({ hook_event_name: "PreCompact" }), ""]) {
      const r = await hook(input, [], env);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    }
    const r = await hook({ session_id: "x", hook_event_name: "PreCompact", transcript_path: "/nonexistent" }, [], {
      FLOORLINE_URL: "",
      FLOORLINE_SPOOL: path.join(work, "spool-4"),
    });
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(existsSync(path.join(work, "spool-4"))).toBe(false);
  });
});
