// Real server processes for the e2e specs that start, signal and kill servers of their own
// (the shared Playwright web server must stay up for the other specs).
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { startScript } from "./scripts";

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

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

export function startServer(port: number, dataDir: string, env: Record<string, string> = {}): ServerProcess {
  let output = "";
  const child = spawn(process.execPath, [...startScript(), "--port", String(port)], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      FLOORLINE_DATA_DIR: dataDir,
      FLOORLINE_DEMO: "0",
      DATABASE_URL: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, base: `http://127.0.0.1:${port}`, output: () => output, exited };
}

export async function waitHealthy(server: ServerProcess): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
    try {
      if ((await fetch(`${server.base}/api/v1/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`server did not become healthy:\n${server.output()}`);
}

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
