#!/usr/bin/env node
// `floorline-hook claude-code`: a Claude Code hook command. It reads the hook's JSON on stdin,
// notes what it needs in the spool (at PreCompact, a copy of the transcript: the conversation
// the compaction is about to replace), starts the sender in the background and exits 0, in some
// ten ms (the target is 200 at most; a stuck one ends after STUCK_MS): Claude Code waits for its
// hooks, and a PreCompact hook's stdout would reach the summarizer, so it prints nothing there. The sender (claude-code-sender.ts) does the
// measuring and the delivery, and any later call starts it again for what is still waiting.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, writeSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dirs, ensureDirs, readConfig, senderRunning, sessionKey, stamp, writeAtomic } from "./claude-code-spool";

/**
 * A hook that cannot finish (a stdin that never closes, a disk that hangs) still ends. Not a
 * budget for ordinary work, which takes some ten milliseconds (`npm run bench:hook`): a hook
 * cut off at 120 ms, as it first was, dropped the compaction it was told of whenever the machine
 * was busy, and a dropped event is lost for good.
 */
const STUCK_MS = 2_000;
const USAGE = "usage: floorline-hook claude-code [--url URL] [--api-key KEY] [--content-class CLASS] [--spool DIR]";

const started = performance.now();

/**
 * Exits 0. With FLOORLINE_HOOK_TIMING set, first says on stderr how long the hook's own work
 * took (from its first line, Node's start aside): what `npm run bench:hook` prints.
 */
function done(): never {
  if (process.env.FLOORLINE_HOOK_TIMING)
    writeSync(2, `floorline-hook: ${Math.round(performance.now() - started)} ms\n`);
  process.exit(0);
}

// Whatever is still running then, the hook is done.
setTimeout(done, STUCK_MS).unref();

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve("");
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => (text += chunk));
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", () => resolve(text));
  });
}

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== "claude-code") {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const config = readConfig(rest, process.env);
  const text = await readStdin();
  // Without a server there is nowhere to send: nothing is kept.
  if (!config.url) return;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    input = null;
  }
  ensureDirs(config.spool);
  const d = dirs(config.spool);
  if (typeof input === "object" && input !== null && typeof (input as Json).session_id === "string") {
    const hook = input as Json;
    const name = stamp();
    const compaction =
      hook.hook_event_name === "PreCompact" ||
      hook.hook_event_name === "PostCompact" ||
      (hook.hook_event_name === "SessionStart" && hook.source === "compact");
    // Any other event matters only while a compaction waits for its summary in the transcript.
    const waitingSummary = existsSync(path.join(d.sessions, `${sessionKey(hook.session_id as string)}.pending`));
    if (compaction || waitingSummary) {
      const event: Json = {
        hook_event_name: str(hook.hook_event_name),
        session_id: hook.session_id,
        transcript_path: str(hook.transcript_path),
        source: str(hook.source),
        trigger: str(hook.trigger),
        custom_instructions: str(hook.custom_instructions),
        compact_summary: str(hook.compact_summary),
        content_class: config.contentClass,
        received_at: new Date().toISOString(),
      };
      const transcript = str(hook.transcript_path);
      if (hook.hook_event_name === "PreCompact" && transcript && existsSync(transcript)) {
        // The transcript grows after this (the summary is appended): the copy is the input.
        const copy = path.join(d.transcripts, `${name}.jsonl`);
        copyFileSync(transcript, copy);
        event.transcript_copy = copy;
      }
      writeAtomic(path.join(d.events, `${name}.json`), JSON.stringify(event));
    }
  }
  const waiting = readdirSync(d.events).length > 0 || readdirSync(d.outbox).length > 0;
  if (waiting && !senderRunning(config.spool)) startSender(config.spool, config.url, config.apiKey);
}

function startSender(spool: string, url: string, apiKey: string | undefined): void {
  const sender = fileURLToPath(new URL("./claude-code-sender.js", import.meta.url));
  const child = spawn(process.execPath, [sender, "--spool", spool], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, FLOORLINE_URL: url, ...(apiKey ? { FLOORLINE_API_KEY: apiKey } : {}) },
  });
  child.on("error", () => undefined);
  child.unref();
}

main(process.argv.slice(2))
  .catch(() => undefined)
  .finally(done);
