// The one way the tests start the app as a process: `npm start`'s script (scripts/start.ts)
// with the environment a test gives, on a port and an embedded data folder of its own. Used by
// the e2e specs that need a server configured apart from the shared one, or that signal, kill
// and restart servers, and by the integration suites that drive the built app over HTTP.
//
// An empty data folder starts as a copy of one that was migrated once per run
// (test/support/data-folders.ts), which saves each start PGlite's initdb (4-10 s of CPU);
// `from: "empty"` keeps a folder empty when the first start itself is what a test is about.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase } from "../bench/support/postgres";
import { fillDataFolder } from "./data-folders";
import { startScript } from "./scripts";

export interface AppOptions {
  /** Default: a free port. */
  port?: number;
  /** The embedded database's folder; default a new temporary one. */
  dataDir?: string;
  /** What an empty `dataDir` starts as: migrated (default) or truly empty (initdb at start). */
  from?: "migrated" | "empty";
  /** Over the defaults: 127.0.0.1, no demo, the embedded database. */
  env?: Record<string, string>;
  /** More arguments for the start script (`--host`, `--data-dir`, ...). */
  args?: string[];
  /** What to run instead of the start script (a bare `next start`, say); its own arguments. */
  command?: { file: string; args: string[] };
  /** How long startApp waits for /api/v1/health (default 120 s; more where a start may build). */
  healthyWithinMs?: number;
}

export interface AppServer {
  base: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Its exit code (null when killed by a signal), once it exits. */
  exited: Promise<number | null>;
  /** Resolves once /api/v1/health answers 200 on `base`; throws if the process exits first. */
  healthy(timeoutMs?: number): Promise<void>;
  /** Sends the signal (SIGTERM by default) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A port nothing listens on right now (other engineers' servers share this machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the process and returns at once (for start-up failures, or a test that waits itself). */
export async function spawnApp(options: AppOptions = {}): Promise<AppServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "floorline-app-"));
  // On PostgreSQL (a DATABASE_URL) the data folder is unused: nothing to copy into it.
  if (options.from !== "empty" && !options.env?.DATABASE_URL) fillDataFolder(dataDir);
  const file = options.command?.file ?? process.execPath;
  const args = options.command?.args ?? [...startScript(), ...(options.args ?? [])];
  let output = "";
  const child = spawn(file, args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      FLOORLINE_DATA_DIR: dataDir,
      FLOORLINE_DEMO: "0",
      DATABASE_URL: "",
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    port,
    dataDir,
    child,
    output: () => output,
    exited,
    async healthy(timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`the app exited before it was healthy:\n${output}`);
        }
        try {
          if ((await fetch(`${base}/api/v1/health`)).ok) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`the app did not become healthy:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts the app and resolves once it answers /api/v1/health; stops it if it never does. */
export async function startApp(options: AppOptions = {}): Promise<AppServer> {
  const app = await spawnApp(options);
  try {
    await app.healthy(options.healthyWithinMs);
  } catch (error) {
    await app.stop("SIGKILL");
    throw error;
  }
  return app;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** A receipt for tests that only need passes to exist. */
export const receipt = (chain: string, n: number) => ({
  chain_id: chain,
  pass_id: `${chain}.p${n}`,
  pass_number: n,
  current_content_hash: `h-${chain}-${n}`,
  current_size_bytes: 4096,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
});

/**
 * The built app on a database of its own, for a suite that drives it over HTTP: a fresh
 * PostgreSQL database when TEST_DATABASE_URL is set (the suite's PostgreSQL run), else its own
 * embedded folder; no demo. `stop()` stops the app and drops what it started on.
 */
export async function startAppOnOwnDatabase(
  name: string,
  env: Record<string, string> = {},
  healthyWithinMs = 300_000,
): Promise<{ app: AppServer; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `floorline-${name}-`));
  const adminUrl = process.env.TEST_DATABASE_URL ?? "";
  const database = adminUrl ? await createDatabase(adminUrl, `floorline_${name.replace(/\W/g, "_")}`) : null;
  const dropAll = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const app = await startApp({
      dataDir,
      env: { DATABASE_URL: database?.url ?? "", FLOORLINE_DEMO: "0", LOG_LEVEL: "warn", ...env },
      healthyWithinMs,
    });
    return {
      app,
      stop: async () => {
        await app.stop();
        await dropAll();
      },
    };
  } catch (error) {
    await dropAll();
    throw error;
  }
}
