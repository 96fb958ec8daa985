// `npm start` as a user runs it, through npm: SIGTERM to the npm process stops the server and
// frees the data folder; a server that dies is started again, saying why; a start that is
// refused is not retried (scripts/supervise.mjs, docs/operations.md).
import { existsSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, spawnApp } from "../support/app-server";
import { dataLockOwner } from "@/db/data-lock";

test.describe.configure({ mode: "serial" });

/** `npm start` itself, with the test's environment (a port, a migrated data folder). */
const npmStart = (env: Record<string, string> = {}) =>
  spawnApp({ command: { file: "npm", args: ["start", "--silent"] }, env });

/** The pid of the server process (not npm's, not the supervisor's): its "listening" line says it. */
async function serverPid(app: AppServer, after = 0): Promise<number> {
  let pid = 0;
  await expect
    .poll(
      () => {
        const lines = app
          .output()
          .split("\n")
          .filter((line) => line.includes('"msg":"listening"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid);
        pid = lines[after] ?? 0;
        return pid;
      },
      { timeout: 120_000 },
    )
    .toBeGreaterThan(0);
  return pid;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("SIGTERM to npm start stops the server and frees the data folder", async () => {
  test.setTimeout(180_000);
  const app = await npmStart();
  try {
    await app.healthy(150_000);
    const pid = await serverPid(app);
    expect(dataLockOwner(app.dataDir)?.pid).toBe(pid);
    expect(await app.stop("SIGTERM")).toBe(0);
    expect(alive(pid), "the server outlived npm").toBe(false);
    expect(dataLockOwner(app.dataDir)).toBeUndefined();
    expect(existsSync(path.join(app.dataDir, "floorline.lock"))).toBe(false);
    await expect(fetch(`${app.base}/api/v1/health`)).rejects.toThrow();
  } finally {
    await app.stop("SIGKILL");
  }
});

test("a server that dies is started again, with a line saying how it ended", async () => {
  test.setTimeout(240_000);
  const app = await npmStart();
  try {
    await app.healthy(150_000);
    const first = await serverPid(app);
    process.kill(first, "SIGKILL");
    await expect
      .poll(() => app.output(), { timeout: 30_000 })
      .toMatch(/"msg":"the server was killed by SIGKILL after \d+ s; starting it again in 1 s"/);
    const second = await serverPid(app, 1);
    expect(second).not.toBe(first);
    await app.healthy(150_000);
    // The restarted server holds the folder; npm is still the one process to stop.
    expect(dataLockOwner(app.dataDir)?.pid).toBe(second);
    expect(await app.stop("SIGTERM")).toBe(0);
    expect(alive(second)).toBe(false);
  } finally {
    await app.stop("SIGKILL");
  }
});

test("a start that is refused is not retried", async () => {
  test.setTimeout(120_000);
  const app = await npmStart({ HOST: "0.0.0.0", FLOORLINE_AUTH: "off" });
  try {
    expect(await app.exited).toBe(1);
    const refusals = app.output().match(/refusing to start/g) ?? [];
    expect(refusals).toHaveLength(1);
    expect(app.output()).not.toContain("starting it again");
  } finally {
    await app.stop("SIGKILL");
  }
});
