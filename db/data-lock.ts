// One process per embedded data folder. PGlite has no lock between processes: two of them on
// one folder both "write", one loses its rows, and the next open can crash. So whoever opens
// a folder (the server, `npm run db:migrate`, the CLI) first takes `floorline.lock` in it.
import { linkSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const LOCK_FILE = "floorline.lock";
// A takeover that crashed half-way leaves its guard folder behind; past this age it is ignored.
const TAKEOVER_GUARD_STALE_MS = 10_000;

export interface DataLockOwner {
  pid: number;
  proc_start?: string;
  started_at?: string;
  host?: string;
  command?: string;
}

export interface DataLock {
  file: string;
  release(): void;
}

/** What a lock file holds, as read: anything, since its writer may have died half-way. */
type LockFileContent = Partial<Record<keyof DataLockOwner, unknown>>;

export class DataFolderLockedError extends Error {
  readonly code = "DATA_FOLDER_LOCKED";
  constructor(
    readonly dataDir: string,
    readonly owner: DataLockOwner,
  ) {
    const since = owner.started_at ? `, running since ${owner.started_at}` : "";
    const where = owner.host && owner.host !== os.hostname() ? ` on host ${owner.host}` : "";
    const what = owner.command ? ` (${owner.command})` : "";
    super(
      `The data folder ${dataDir} is in use by process ${owner.pid}${where}${what}${since}. ` +
        "Only one process may open an embedded data folder: stop that process first, or use another FLOORLINE_DATA_DIR.",
    );
    this.name = "DataFolderLockedError";
  }
}

/**
 * The kernel's start time of a process (clock ticks since boot), so that a pid reused by an
 * unrelated process after a crash is not mistaken for the owner. Undefined off Linux.
 */
function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function ownerAlive(owner: LockFileContent): owner is DataLockOwner {
  if (typeof owner.pid !== "number" || !Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  // A folder shared between machines (a network mount): another host's pid cannot be
  // checked from here, so its lock stands until removed by hand.
  if (typeof owner.host === "string" && owner.host !== os.hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (typeof owner.proc_start === "string") {
    const now = procStart(owner.pid);
    if (now !== undefined && now !== owner.proc_start) return false;
  }
  return true;
}

function readOwner(file: string): LockFileContent | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, "utf8"));
    return owner && typeof owner === "object" ? owner : {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    // Empty or half-written: its writer died before finishing, so it owns nothing.
    return {};
  }
}

/** Who holds the folder's lock, if a live process does. */
export function dataLockOwner(dataDir: string): DataLockOwner | undefined {
  const owner = readOwner(path.join(dataDir, LOCK_FILE));
  return owner && ownerAlive(owner) ? owner : undefined;
}

/**
 * Takes the folder's lock for this process, taking over a stale one (its owner is dead).
 * Throws DataFolderLockedError when a live process, this one included, holds it.
 */
export function acquireDataLock(dataDir: string, options: { command?: string } = {}): DataLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine = {
    pid: process.pid,
    proc_start: procStart(process.pid),
    started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    host: os.hostname(),
    command: options.command ?? path.basename(process.argv[1] ?? process.argv0),
  };
  // Written whole under a private name, then linked into place: the link is atomic and fails
  // when the lock exists, so no reader ever sees half a lock and no two processes both win.
  const draft = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`);
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (attempt > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
      try {
        linkSync(draft, file);
        return { file, release: () => releaseDataLock(file, mine) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = readOwner(file);
      if (owner === undefined) continue;
      if (ownerAlive(owner)) throw new DataFolderLockedError(dataDir, owner);
      removeStale(file, owner);
    }
    throw new Error(`Could not take the lock ${file}: it keeps changing hands.`);
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Removes a stale lock, guarded so that two processes taking over the same stale lock cannot
 * delete each other's fresh one: only the holder of the guard folder removes, and only the
 * lock it judged stale.
 */
function removeStale(file: string, stale: LockFileContent): void {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_GUARD_STALE_MS) rmdirSync(guard);
    } catch {
      // gone meanwhile
    }
    return;
  }
  try {
    if (JSON.stringify(readOwner(file)) === JSON.stringify(stale)) unlinkSync(file);
  } catch {
    // already removed
  } finally {
    rmdirSync(guard);
  }
}

function releaseDataLock(file: string, mine: DataLockOwner): void {
  const owner = readOwner(file);
  if (owner && owner.pid === mine.pid && owner.proc_start === mine.proc_start) {
    try {
      unlinkSync(file);
    } catch {
      // removed by hand meanwhile
    }
  }
}
