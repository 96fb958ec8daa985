// A server of the built app of its own (own port, own embedded data folder), for e2e tests
// that need their own environment or restart the server. Started like `npm start`.
import { type ChildProcess, spawn } from "node:child_process";
import { startScript } from "./scripts";

export interface AppServer {
  base: string;
  child: ChildProcess;
  output(): string;
  /** Stops it with SIGTERM and waits for the exit code. */
  stop(): Promise<number | null>;
}

export async function startApp(options: {
  port: number;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<AppServer> {
  let output = "";
  const child = spawn(process.execPath, startScript(), {
    env: {
      ...process.env,
      PORT: String(options.port),
      HOST: "127.0.0.1",
      FLOORLINE_DATA_DIR: options.dataDir,
      FLOORLINE_DEMO: "0",
      DATABASE_URL: "",
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${options.port}`;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the app exited before it was healthy:\n${output}`);
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 480) throw new Error(`the app did not become healthy:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    base,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exit;
    },
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}
