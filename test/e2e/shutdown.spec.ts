// The run command's server owns an embedded database; SIGTERM and SIGINT must close it
// cleanly so that a restart finds every committed receipt and the folder opens again.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT) + 50;
const base = `http://127.0.0.1:${PORT}`;

function startServer(dataDir: string): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(process.execPath, [path.join(process.cwd(), "scripts/start.mjs")], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      FLOORLINE_DATA_DIR: dataDir,
      FLOORLINE_DEMO: "0",
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { stdout, stderr } = child;
  if (!stdout || !stderr) throw new Error("the server was spawned without piped output");
  stdout.on("data", (chunk) => (output += chunk));
  stderr.on("data", (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function waitHealthy(): Promise<void> {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("server did not become healthy");
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

test("SIGTERM and SIGINT close the embedded database; a restart finds every receipt", async () => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-shutdown-"));
  try {
    for (const [round, signal] of [
      [1, "SIGTERM"],
      [2, "SIGINT"],
    ] as const) {
      const server = startServer(dataDir);
      await waitHealthy();
      const receipt = {
        chain_id: "shutdown-chain",
        pass_id: `shutdown.p${round}`,
        pass_number: round,
        current_content_hash: `h${round}`,
        current_size_bytes: 4096,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9,
      };
      const stored = await fetch(`${base}/api/v1/passes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(receipt),
      });
      expect(stored.status).toBe(201);
      const exit = exited(server.child);
      server.child.kill(signal);
      expect(await exit).toBe(0);
      expect(server.output()).toContain(`${signal}: closing the database`);
    }
    const server = startServer(dataDir);
    await waitHealthy();
    const chain = await (await fetch(`${base}/api/v1/chains/shutdown-chain`)).json();
    expect(chain.passes.map((p: { pass_id: string }) => p.pass_id)).toEqual(["shutdown.p1", "shutdown.p2"]);
    const exit = exited(server.child);
    server.child.kill("SIGTERM");
    expect(await exit).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
