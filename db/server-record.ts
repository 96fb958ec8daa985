// How the CLI finds the server that holds an embedded data folder. The folder's lock
// (data-lock.ts) keeps the CLI from opening the database beside a server, so the server, once
// it serves, writes `floorline.server` next to the lock: its pid, where a process on this
// machine reaches it, and the token the CLI sends (lib/auth/local-token.ts). The file is
// readable by the folder's owner only (0600), as the database files are. The CLI believes it
// only while the lock's live owner is the process that wrote it, so a file left by a server
// that was killed names nobody.
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dropLocalToken, newLocalToken } from "../lib/auth/local-token";
import { dataLockOwner } from "./data-lock";

export const SERVER_FILE = "floorline.server";

/** The command a server's lock names (data-lock.ts records the script's file name). */
export const SERVER_COMMAND = "start.ts";

export interface ServerRecord {
  pid: number;
  proc_start?: string;
  /** The address to connect to: loopback, or null when the server listens on no loopback address. */
  address: string | null;
  port: number;
  /** A Host header the server answers to. */
  host: string;
  token: string;
}

/**
 * Publishes this process as the server of `dataDir`, with a fresh token; null when this
 * process does not hold the folder's lock (nothing to reach it for). `release` removes the
 * file and forgets the token, at shutdown.
 */
export function publishServer(
  dataDir: string,
  reach: { address: string; host: string } | null,
  port: number,
): { release(): void } | null {
  const owner = dataLockOwner(dataDir);
  if (owner?.pid !== process.pid) return null;
  const record: ServerRecord = {
    pid: process.pid,
    proc_start: owner.proc_start,
    address: reach?.address ?? null,
    port,
    host: reach?.host ?? "",
    token: newLocalToken(),
  };
  const file = path.join(dataDir, SERVER_FILE);
  // Written whole under a private name (created 0600, never readable by others even for a
  // moment), then renamed into place: a reader sees the old file or the new one.
  const draft = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(draft, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(draft, file);
  return {
    release() {
      dropLocalToken();
      if (readRecord(file)?.token !== record.token) return;
      try {
        unlinkSync(file);
      } catch {
        // removed by hand meanwhile
      }
    },
  };
}

function readRecord(file: string): ServerRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  const r = value as Record<string, unknown>;
  const ok =
    Number.isInteger(r.pid) &&
    Number.isInteger(r.port) &&
    (r.address === null || typeof r.address === "string") &&
    typeof r.host === "string" &&
    typeof r.token === "string" &&
    (r.proc_start === undefined || typeof r.proc_start === "string");
  return ok ? (r as unknown as ServerRecord) : undefined;
}

/** The server that holds `dataDir` and published how to reach it; undefined when none does. */
export function runningServer(dataDir: string): ServerRecord | undefined {
  const owner = dataLockOwner(dataDir);
  if (!owner) return undefined;
  const record = readRecord(path.join(dataDir, SERVER_FILE));
  if (!record || record.pid !== owner.pid || record.proc_start !== owner.proc_start) return undefined;
  return record;
}
