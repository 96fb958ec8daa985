// The Claude Code hook's sender, started in the background by `floorline-hook claude-code`:
// it turns the spooled hook calls into passes (PreCompact's transcript copy is the input, the
// compact summary the output: from PostCompact's `compact_summary`, else from the transcript's
// `isCompactSummary` record once SessionStart or a later call shows it), records them with the
// SDK, and delivers the requests to the server. What the server cannot take now stays in the
// outbox for the next call's sender; what it refuses goes to refused/ with its answer.
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Floorline } from "../client";
import { FloorlineError, httpTransport, type Transport } from "../http";
import {
  dirs,
  ensureDirs,
  readConfig,
  releaseLock,
  sessionKey,
  stamp,
  takeLock,
  writeAtomic,
} from "./claude-code-spool";
import { contentText, messageLine } from "./messages";
import { openChain, recordCompactionNow } from "./record";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

interface Pending {
  transcript_copy: string | null;
  transcript_path: string | null;
  /** The transcript's size at PreCompact: the summary is looked for after it. */
  offset: number;
  trigger: string | null;
  custom_instructions: string | null;
  content_class: string;
}

interface SessionState {
  session_id: string;
  passes: number;
  pending: Pending | null;
}

/**
 * How long a request may take before the outbox keeps it for the next hook call's sender. This
 * process runs detached, so waiting costs Claude Code nothing, while a receipt given up on waits
 * for a next hook call that may not come (the session's last compaction). A server that was
 * measuring a batch at a load of 20 on 2 cores took over 5 s, the bound before.
 */
const REQUEST_TIMEOUT_MS = 30_000;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

function remove(file: string | null | undefined): void {
  if (!file) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Transcript records (JSON Lines); a line that is not JSON is skipped. */
function records(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record = JSON.parse(line) as unknown;
      if (isObject(record)) out.push(record);
    } catch {
      // a torn last line, or not a record
    }
  }
  return out;
}

/**
 * The conversation as the model held it before this compaction: the main thread's user and
 * assistant messages from the last compact summary on (what came before it was already replaced).
 */
export function conversationText(transcript: string): string {
  let lines: string[] = [];
  for (const r of records(transcript)) {
    if (r.isSidechain === true) continue;
    if (r.type === "system" && r.subtype === "compact_boundary") {
      lines = [];
      continue;
    }
    if (r.type !== "user" && r.type !== "assistant") continue;
    if (r.isCompactSummary === true) lines = [];
    const line = messageLine(r.message);
    if (line !== "") lines.push(line);
  }
  return lines.join("\n\n");
}

/** The first compact summary written after `offset` bytes of the transcript, or null. */
export function summaryAfter(transcriptPath: string, offset: number): string | null {
  let text: string;
  try {
    text = readFileSync(transcriptPath).subarray(offset).toString("utf8");
  } catch {
    return null;
  }
  for (const r of records(text)) {
    if (r.isCompactSummary === true && isObject(r.message)) return contentText(r.message.content);
  }
  return null;
}

class Sender {
  private readonly d: ReturnType<typeof dirs>;
  private readonly fl: Floorline;
  private readonly http: Transport;

  constructor(spool: string, url: string, apiKey: string | undefined) {
    this.d = dirs(spool);
    this.http = httpTransport(url, apiKey, REQUEST_TIMEOUT_MS);
    // Receipts and originals go to the outbox first, so that nothing recorded is lost with this
    // process; the policy is read from the server (the default when it cannot be).
    const outbox: Transport = {
      request: async (method, p, body) => {
        if (method === "GET") return this.http.request(method, p, body);
        writeAtomic(path.join(this.d.outbox, `${stamp()}.json`), JSON.stringify({ method, path: p, body }));
        return {};
      },
    };
    this.fl = new Floorline({ transport: outbox, flushOnExit: false, scheduledDelayMs: 0, policyWaitMs: 2_000 });
  }

  async run(): Promise<void> {
    for (let round = 0; round < 20; round++) {
      const events = readdirSync(this.d.events)
        .filter((f) => f.endsWith(".json"))
        .sort();
      for (const name of events) {
        const file = path.join(this.d.events, name);
        const event = readJson(file);
        if (isObject(event)) await this.handle(event);
        remove(file);
      }
      await this.fl.flush(10_000);
      await this.deliver();
      if (readdirSync(this.d.events).filter((f) => f.endsWith(".json")).length === 0) break;
    }
    await this.fl.close({ timeoutMs: 1_000 });
  }

  private statePath(sessionId: string): string {
    return path.join(this.d.sessions, `${sessionKey(sessionId)}.json`);
  }

  private load(sessionId: string): SessionState {
    const state = readJson(this.statePath(sessionId));
    if (isObject(state) && typeof state.passes === "number")
      return { session_id: sessionId, passes: state.passes, pending: (state.pending as Pending | null) ?? null };
    return { session_id: sessionId, passes: 0, pending: null };
  }

  private save(state: SessionState): void {
    writeAtomic(this.statePath(state.session_id), JSON.stringify(state));
    const marker = this.statePath(state.session_id).replace(/\.json$/, ".pending");
    if (state.pending) writeFileSync(marker, "");
    else remove(marker);
  }

  private async handle(event: Json): Promise<void> {
    const sessionId = typeof event.session_id === "string" ? event.session_id : null;
    if (!sessionId) return;
    const state = this.load(sessionId);
    const str = (v: unknown) => (typeof v === "string" ? v : null);
    if (event.hook_event_name === "PreCompact") {
      // A compaction whose summary never showed is replaced by this one.
      if (state.pending) remove(state.pending.transcript_copy);
      const copy = str(event.transcript_copy);
      let offset = 0;
      try {
        offset = copy ? readFileSync(copy).length : 0;
      } catch {
        offset = 0;
      }
      state.pending = {
        transcript_copy: copy,
        transcript_path: str(event.transcript_path),
        offset,
        trigger: str(event.trigger),
        custom_instructions: str(event.custom_instructions),
        content_class: str(event.content_class) ?? "claude-code",
      };
      this.save(state);
      return;
    }
    const pending = state.pending;
    if (!pending) return;
    const transcript = str(event.transcript_path) ?? pending.transcript_path;
    const summary = str(event.compact_summary) ?? (transcript ? summaryAfter(transcript, pending.offset) : null);
    if (summary === null) return;
    let input: string | null = null;
    try {
      input = pending.transcript_copy ? conversationText(readFileSync(pending.transcript_copy, "utf8")) : null;
    } catch {
      input = null;
    }
    const chain = openChain(
      this.fl,
      { chainId: `claude-code:${sessionId}`, contentClass: pending.content_class, resumeAfter: state.passes },
      "claude-code",
    );
    if (chain) {
      await chain.ready();
      recordCompactionNow(chain, {
        input: input === "" ? null : input,
        output: summary,
        metadata: {
          framework: "claude-code",
          trigger: pending.trigger,
          ...(pending.custom_instructions ? { custom_instructions: pending.custom_instructions } : {}),
          summary_from: event.hook_event_name === "PostCompact" ? "PostCompact" : "transcript",
        },
      });
      state.passes = chain.passes;
    }
    remove(pending.transcript_copy);
    state.pending = null;
    this.save(state);
  }

  /** Sends the outbox in order; stops at the first answer that says later (or none). */
  private async deliver(): Promise<void> {
    const files = readdirSync(this.d.outbox)
      .filter((f) => f.endsWith(".json"))
      .sort();
    for (const name of files) {
      const file = path.join(this.d.outbox, name);
      const request = readJson(file);
      if (!isObject(request) || typeof request.path !== "string") {
        remove(file);
        continue;
      }
      try {
        await this.http.request(
          typeof request.method === "string" ? request.method : "POST",
          request.path,
          request.body,
        );
        remove(file);
      } catch (error) {
        if (error instanceof FloorlineError && error.retryable) return;
        const why =
          error instanceof FloorlineError
            ? { status: error.status, code: error.code, message: error.message }
            : { message: String(error) };
        writeAtomic(path.join(this.d.refused, name), JSON.stringify({ ...request, refused: why }));
        remove(file);
      }
    }
  }
}

async function main(): Promise<void> {
  const config = readConfig(process.argv.slice(2), process.env);
  if (!config.url) return;
  ensureDirs(config.spool);
  // A hook call that wrote its event while this sender was finishing saw the lock held and
  // started none: look again once the lock is released.
  for (let turn = 0; turn < 5; turn++) {
    if (!takeLock(config.spool)) return;
    try {
      await new Sender(config.spool, config.url, config.apiKey).run();
    } finally {
      releaseLock(config.spool);
    }
    if (readdirSync(dirs(config.spool).events).filter((f) => f.endsWith(".json")).length === 0) return;
  }
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main()
    .catch(() => undefined)
    .finally(() => process.exit(0));
}
