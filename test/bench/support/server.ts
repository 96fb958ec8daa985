import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer } from "node:net";
import { repoRoot } from "./paths";
import { startScript } from "../../support/scripts";

export interface RunningApp {
  baseUrl: string;
  /** The server process (`scripts/start.ts`); measure its whole process tree. */
  pid: number;
  /** SIGTERM, then wait for the process (and the database it closes) to exit. */
  stop: () => Promise<void>;
}

function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** A free port in [first, last], starting at a random one so parallel runs rarely collide. */
export async function findFreePort(first: number, last: number, host = "127.0.0.1"): Promise<number> {
  const span = last - first + 1;
  const offset = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = first + ((offset + i) % span);
    if (await portIsFree(port, host)) return port;
  }
  throw new Error(`no free port in ${first}-${last}`);
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * V8 flags for the server process: none, as `npm start` gives none (scripts/start.ts sets its
 * heap growth itself). BENCH_SERVER_NODE_FLAGS adds some, to compare
 * (e.g. "--max-old-space-size=256").
 */
export function serverNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.BENCH_SERVER_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Starts the built app the way users do (`npm start`, which builds first when
 * the build in `distDir` is stale) and resolves once /api/v1/health answers 200.
 */
export async function startApp(options: {
  port: number;
  distDir: string;
  env: Record<string, string>;
  timeoutMs?: number;
}): Promise<RunningApp> {
  const host = "127.0.0.1";
  const baseUrl = `http://${host}:${options.port}`;
  const child = spawn(process.execPath, [...serverNodeFlags(), ...startScript(repoRoot)], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...options.env,
      HOST: host,
      PORT: String(options.port),
      NEXT_DIST_DIR: options.distDir,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Kept for the error message only: a build or start-up failure is otherwise invisible.
  const log: string[] = [];
  // BENCH_SERVER_LOG=file keeps the server's whole output, for a server that dies mid-run.
  const logFile = process.env.BENCH_SERVER_LOG;
  const keep = (chunk: Buffer) => {
    if (logFile) appendFileSync(logFile, chunk);
    log.push(chunk.toString());
    if (log.length > 200) log.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    if (!(await waitForExit(child, 15_000))) {
      child.kill("SIGKILL");
      await waitForExit(child, 5_000);
    }
  };

  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`${baseUrl}/api/v1/health`);
      if (response.ok) return { baseUrl, pid: child.pid ?? 0, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the app did not become healthy on ${baseUrl}; its output ended with:\n${log.join("").slice(-4000)}`);
}
