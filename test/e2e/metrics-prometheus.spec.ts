// The metrics as Prometheus itself sees them: promtool lints the app's exposition, and a
// real Prometheus scrapes the built app and answers a query for what was ingested.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, postJson, startApp } from "../support/app-server";

const hasPrometheus = spawnSync("prometheus", ["--version"]).status === 0;
const hasPromtool = spawnSync("promtool", ["--version"]).status === 0;

const receipt = (chain: string, n: number, density: number) => ({
  chain_id: chain,
  pass_id: `${chain}.p${n}`,
  pass_number: n,
  current_content_hash: `h${n}`,
  current_size_bytes: 4096,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: density,
  content_class: "prom-e2e",
});

test("promtool finds nothing to say about the app's /metrics", async ({ request }) => {
  test.skip(!hasPromtool, "promtool is not installed (apt-get install -y prometheus)");
  // Something in every family: a request, a retrieval miss.
  await request.get("/api/v1/chains/no-such-chain");
  await request.post("/api/v1/retrieve", { data: { hash: "0".repeat(64) } });
  const response = await request.get("/metrics");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("text/plain");
  const body = await response.text();
  expect(body).toContain('route="/api/v1/chains/{chain_id}"');
  expect(body).not.toContain("no-such-chain");
  const result = spawnSync("promtool", ["check", "metrics"], { input: body, encoding: "utf8" });
  expect(result.stdout + result.stderr).toBe("");
  expect(result.status).toBe(0);
});

test("a real Prometheus scrapes the app and reads floorline_passes_ingested_total back", async () => {
  test.skip(!hasPrometheus, "prometheus is not installed (apt-get install -y prometheus)");
  test.setTimeout(240_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "floorline-prom-"));
  let app: AppServer | undefined;
  let prometheus: ChildProcess | undefined;
  const APP_PORT = await freePort();
  const PROM_PORT = await freePort();
  try {
    app = await startApp({ port: APP_PORT, dataDir: path.join(dir, "data") });
    const config = path.join(dir, "prometheus.yml");
    writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "scrape_configs:",
        "  - job_name: floorline",
        "    metrics_path: /metrics",
        "    static_configs:",
        `      - targets: ["127.0.0.1:${APP_PORT}"]`,
        "",
      ].join("\n"),
    );
    let promLog = "";
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, "tsdb")}`,
        `--web.listen-address=127.0.0.1:${PROM_PORT}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stderr?.on("data", (c) => (promLog += c));

    const batch = [receipt("prom-a", 1, 0.9), receipt("prom-a", 2, 0.8), receipt("prom-b", 1, 0.9)];
    const stored = await postJson(`${app.base}/api/v1/passes`, { receipts: batch });
    expect(stored.status).toBe(201);

    const query = 'sum(floorline_passes_ingested_total{content_class="prom-e2e"})';
    const deadline = Date.now() + 90_000;
    let value: string | null = null;
    while (Date.now() < deadline) {
      try {
        const answer = await fetch(`http://127.0.0.1:${PROM_PORT}/api/v1/query?query=${encodeURIComponent(query)}`);
        const json = (await answer.json()) as { data?: { result?: { value: [number, string] }[] } };
        value = json.data?.result?.[0]?.value[1] ?? null;
        if (value === "3") break;
      } catch {
        // Prometheus is still starting
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(value, `Prometheus never saw the 3 receipts; its log:\n${promLog.slice(-2000)}`).toBe("3");

    const up = await fetch(
      `http://127.0.0.1:${PROM_PORT}/api/v1/query?query=${encodeURIComponent('up{job="floorline"}')}`,
    );
    expect(((await up.json()) as { data: { result: { value: [number, string] }[] } }).data.result[0]?.value[1]).toBe(
      "1",
    );
  } finally {
    prometheus?.kill("SIGTERM");
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
