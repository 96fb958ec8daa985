// The spool the Claude Code hook and its sender share: a folder of files, so that what one
// short-lived hook call saw outlives it. Node's built-ins only: the hook must start fast.
//   events/    one file per hook call, in order of arrival (sent by the sender, then removed)
//   sessions/  per session: its passes so far and a compaction waiting for its summary
//   transcripts/ the transcript as it was at PreCompact (the compaction's input)
//   outbox/    requests for the server not yet delivered
//   refused/   requests the server refused, with its answer, for an operator to read
//   sender.lock the running sender's pid
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export const DEFAULT_CLASS = "claude-code";

export interface HookConfig {
  url: string | undefined;
  apiKey: string | undefined;
  contentClass: string;
  spool: string;
}

/** Flags over the environment: --url, --api-key, --content-class, --spool. */
export function readConfig(argv: readonly string[], env: NodeJS.ProcessEnv): HookConfig {
  const flag = (name: string): string | undefined => {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i] as string;
      if (a === `--${name}`) return argv[i + 1];
      if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    }
    return undefined;
  };
  return {
    url: flag("url") || env.FLOORLINE_URL || undefined,
    apiKey: flag("api-key") || env.FLOORLINE_API_KEY || undefined,
    contentClass: flag("content-class") || DEFAULT_CLASS,
    spool: flag("spool") || env.FLOORLINE_SPOOL || path.join(homedir(), ".floorline", "spool"),
  };
}

export const dirs = (spool: string) => ({
  events: path.join(spool, "events"),
  sessions: path.join(spool, "sessions"),
  transcripts: path.join(spool, "transcripts"),
  outbox: path.join(spool, "outbox"),
  refused: path.join(spool, "refused"),
  lock: path.join(spool, "sender.lock"),
});

export function ensureDirs(spool: string): void {
  const d = dirs(spool);
  for (const dir of [d.events, d.sessions, d.transcripts, d.outbox, d.refused]) mkdirSync(dir, { recursive: true });
}

/** A file name that sorts in order of writing across processes. */
export function stamp(): string {
  const now = process.hrtime.bigint().toString().padStart(20, "0");
  return `${Date.now().toString().padStart(15, "0")}-${now.slice(-9)}-${process.pid}`;
}

/** Written whole or not at all: a reader never sees half a file. */
export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export const sessionKey = (sessionId: string) => createHash("sha256").update(sessionId).digest("hex").slice(0, 24);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a sender is running now. */
export function senderRunning(spool: string): boolean {
  try {
    const pid = Number(readFileSync(dirs(spool).lock, "utf8"));
    return Number.isSafeInteger(pid) && pid > 0 && alive(pid);
  } catch {
    return false;
  }
}

/** Takes the sender's lock; false when another live sender holds it. A dead holder's lock is taken over. */
export function takeLock(spool: string): boolean {
  const lock = dirs(spool).lock;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
      if (senderRunning(spool)) return false;
      try {
        unlinkSync(lock);
      } catch {
        // another sender took it over first
      }
    }
  }
  return false;
}

export function releaseLock(spool: string): void {
  try {
    if (Number(readFileSync(dirs(spool).lock, "utf8")) === process.pid) unlinkSync(dirs(spool).lock);
  } catch {
    // already gone
  }
}
