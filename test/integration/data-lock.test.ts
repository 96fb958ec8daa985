// One process per embedded data folder: the lock names its owner, refuses a second opener
// (another process, db:migrate, a second open in the same process) and is taken over when
// its owner died. Real processes throughout: the lock is about processes.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataLock, DataFolderLockedError, LOCK_FILE } from "@/db/data-lock";
import { openDatabase } from "@/db/index";
import { driver } from "../support/database";

const root = process.cwd();
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "floorline-lock-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A separate process that takes the folder's lock and holds it until killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const script = `import { acquireDataLock } from ${JSON.stringify(path.join(root, "db/data-lock.ts"))};
acquireDataLock(${JSON.stringify(dir)}, { command: "lock-holder" }); console.log("held"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(() => child.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}

function deadPid(): number {
  const gone = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
  return Number(gone.stdout.trim());
}

// About embedded folders only: the PostgreSQL pass of the suite need not run it again.
describe.skipIf(driver === "postgres")("embedded data folder lock", () => {
  it("refuses a second process, naming the folder and the owner's pid", async () => {
    const dir = tempDir();
    const owner = await holder(dir);
    let refused: unknown;
    try {
      acquireDataLock(dir);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataFolderLockedError);
    expect((refused as Error).message).toContain(dir);
    expect((refused as Error).message).toContain(`process ${owner.pid}`);
    // Opening the database refuses the same way, before PGlite touches the folder.
    await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`process ${owner.pid}`);
    expect(existsSync(path.join(dir, "PG_VERSION"))).toBe(false);
  });

  it("makes db:migrate refuse while another process owns the folder", async () => {
    const dir = tempDir();
    const owner = await holder(dir);
    const run = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/migrate.ts"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: "", FLOORLINE_DATA_DIR: dir },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`The data folder ${dir} is in use by process ${owner.pid}`);
  });

  it("takes over a lock whose owner died, and one whose pid now belongs to another process", () => {
    const dir = tempDir();
    const file = path.join(dir, LOCK_FILE);
    writeFileSync(file, JSON.stringify({ pid: deadPid(), started_at: "2026-01-01T00:00:00.000Z" }));
    const first = acquireDataLock(dir);
    expect(JSON.parse(readFileSync(file, "utf8")).pid).toBe(process.pid);
    first.release();
    expect(existsSync(file)).toBe(false);

    // pid 1 is alive, but its kernel start time is not the one recorded: the pid was reused.
    writeFileSync(file, JSON.stringify({ pid: 1, proc_start: "1", started_at: "2026-01-01T00:00:00.000Z" }));
    const second = acquireDataLock(dir);
    expect(JSON.parse(readFileSync(file, "utf8")).pid).toBe(process.pid);
    second.release();

    // Another machine's lock (a shared mount) cannot be checked from here: it stands.
    writeFileSync(file, JSON.stringify({ pid: deadPid(), host: "elsewhere.example" }));
    expect(() => acquireDataLock(dir)).toThrow(/in use by process \d+ on host elsewhere\.example/);

    // A half-written lock (its writer died mid-write) owns nothing.
    writeFileSync(file, "");
    acquireDataLock(dir).release();
  });

  it("lets exactly one of several processes racing for a stale lock take it over", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid() }));
    const script = `import { acquireDataLock } from ${JSON.stringify(path.join(root, "db/data-lock.ts"))};
try { const lock = acquireDataLock(${JSON.stringify(dir)}); console.log("won"); setTimeout(() => lock.release(), 3000); }
catch (e) { console.log(e.code === "DATA_FOLDER_LOCKED" ? "refused" : "error " + e.message); }`;
    const outcomes = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<string>((resolve) => {
            const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
              stdio: ["ignore", "pipe", "inherit"],
            });
            cleanups.push(() => child.kill("SIGKILL"));
            let out = "";
            child.stdout!.on("data", (c) => (out += c));
            child.once("exit", () => resolve(out.trim()));
          }),
      ),
    );
    expect(outcomes.sort()).toEqual(["refused", "refused", "refused", "won"]);
  });

  it("refuses a second open in the same process and frees the folder on close", async () => {
    const dir = tempDir();
    const handle = await openDatabase({ dataDir: dir });
    try {
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`process ${process.pid}`);
    } finally {
      await handle.close();
    }
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    await (await openDatabase({ dataDir: dir })).close();
  });
});
