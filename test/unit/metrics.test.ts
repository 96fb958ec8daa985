import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  observeRequest,
  recordBoundaries,
  recordCollapse,
  recordDelivery,
  recordEvaluate,
  recordEvictions,
  recordGuarded,
  recordIntegrityFindings,
  recordPassesIngested,
  recordRetrieval,
  recordTraceRejected,
  recordTraceStored,
  renderMetrics,
  resetMetrics,
  setStoreStatsSource,
  setSummaryQueueSource,
} from "@/lib/observability/metrics";
import { existingSingleton } from "@/lib/process-singleton";
import { blocksUnder } from "../support/markdown";

afterEach(() => {
  setStoreStatsSource(null);
  setSummaryQueueSource(null);
  resetMetrics();
});

const CONTRACT_SERIES = [
  "floorline_passes_ingested_total",
  "floorline_client_mismatches_total",
  "floorline_collapses_total",
  "floorline_guarded_total",
  "floorline_chains_started_total",
  "floorline_integrity_findings_total",
  "floorline_boundaries_total",
  "floorline_traces_stored_total",
  "floorline_trace_rejections_total",
  "floorline_ccr_retrievals_total",
  "floorline_ccr_evictions_total",
  "floorline_ccr_store_bytes",
  "floorline_ccr_entries",
  "floorline_webhook_deliveries_total",
  "floorline_evaluate_requests_total",
  "floorline_http_request_duration_seconds",
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
];

function value(body: string, series: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const hasPromtool = spawnSync("promtool", ["--version"]).status === 0;

describe("metrics module", () => {
  it("exposes every series of the contract", async () => {
    setStoreStatsSource(async () => ({ bytes: 10, entries: { live: 1, evicted: 0, expired: 0 } }));
    const { body, contentType } = await renderMetrics();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of CONTRACT_SERIES) expect(body, name).toContain(`# TYPE ${name} `);
  });

  it("shows the summariser's queue from its source", async () => {
    setSummaryQueueSource(async () => ({ passes: 5_000, oldest_seconds: 1.5 }));
    const { body } = await renderMetrics();
    expect(body).toMatch(/^floorline_fold_queue_passes 5000$/m);
    expect(body).toMatch(/^floorline_fold_queue_oldest_seconds 1\.5$/m);
  });

  it("counts what the use cases record, with their labels", async () => {
    recordPassesIngested([
      { content_class: "summary", verdict: "SAFE_TO_COMPRESS", client_mismatch: false },
      { content_class: "summary", verdict: "COLLAPSE_IMMINENT", client_mismatch: true },
      { content_class: "summary", verdict: "SAFE_TO_COMPRESS", client_mismatch: false },
    ]);
    recordCollapse("summary", "COLLAPSE_IMMINENT");
    recordGuarded("summary", "restore");
    recordIntegrityFindings(["missing_pass", "missing_pass"]);
    recordBoundaries(["halt"]);
    recordTraceStored();
    recordTraceRejected();
    recordRetrieval("evicted");
    recordEvictions("budget", 3);
    recordEvictions("ttl", 0);
    recordDelivery("failed");
    recordEvaluate("split");
    recordEvaluate("parsed");
    recordEvaluate("parsed");
    const { body } = await renderMetrics();
    expect(value(body, 'floorline_evaluate_requests_total{path="split"}')).toBe(1);
    expect(value(body, 'floorline_evaluate_requests_total{path="whole"}')).toBe(0);
    expect(value(body, 'floorline_evaluate_requests_total{path="parsed"}')).toBe(2);
    expect(value(body, 'floorline_passes_ingested_total{content_class="summary",verdict="SAFE_TO_COMPRESS"}')).toBe(2);
    expect(value(body, 'floorline_passes_ingested_total{content_class="summary",verdict="COLLAPSE_IMMINENT"}')).toBe(1);
    expect(value(body, 'floorline_client_mismatches_total{content_class="summary"}')).toBe(1);
    expect(value(body, 'floorline_collapses_total{content_class="summary",verdict="COLLAPSE_IMMINENT"}')).toBe(1);
    expect(value(body, 'floorline_guarded_total{content_class="summary",strategy="restore"}')).toBe(1);
    expect(value(body, 'floorline_integrity_findings_total{kind="missing_pass"}')).toBe(2);
    expect(value(body, 'floorline_integrity_findings_total{kind="hash_mismatch"}')).toBe(0);
    expect(value(body, 'floorline_boundaries_total{strategy="halt"}')).toBe(1);
    expect(value(body, "floorline_traces_stored_total")).toBe(1);
    expect(value(body, "floorline_trace_rejections_total")).toBe(1);
    expect(value(body, 'floorline_ccr_retrievals_total{outcome="evicted"}')).toBe(1);
    expect(value(body, 'floorline_ccr_retrievals_total{outcome="hit"}')).toBe(0);
    expect(value(body, 'floorline_ccr_evictions_total{reason="budget"}')).toBe(3);
    expect(value(body, 'floorline_ccr_evictions_total{reason="ttl"}')).toBe(0);
    expect(value(body, 'floorline_webhook_deliveries_total{outcome="failed"}')).toBe(1);
  });

  it("labels request durations with the route pattern", async () => {
    observeRequest("/api/v1/chains/{chain_id}", "get", 404, 0.003);
    const { body } = await renderMetrics();
    expect(
      value(
        body,
        'floorline_http_request_duration_seconds_count{route="/api/v1/chains/{chain_id}",method="GET",status="404"}',
      ),
    ).toBe(1);
    expect(
      value(
        body,
        'floorline_http_request_duration_seconds_bucket{le="0.005",route="/api/v1/chains/{chain_id}",method="GET",status="404"}',
      ),
    ).toBe(1);
  });

  it("reads the store gauges from the source, at most once per cache period", async () => {
    let reads = 0;
    setStoreStatsSource(async () => {
      reads++;
      return { bytes: 4096, entries: { live: 3, evicted: 2, expired: 1 } };
    });
    const first = (await renderMetrics()).body;
    await renderMetrics();
    expect(reads).toBe(1);
    expect(value(first, "floorline_ccr_store_bytes")).toBe(4096);
    expect(value(first, 'floorline_ccr_entries{status="live"}')).toBe(3);
    expect(value(first, 'floorline_ccr_entries{status="evicted"}')).toBe(2);
    expect(value(first, 'floorline_ccr_entries{status="expired"}')).toBe(1);
  });

  it("still answers when the store cannot be read", async () => {
    setStoreStatsSource(async () => {
      throw Object.assign(new Error("down"), { code: "ECONNREFUSED" });
    });
    const { body } = await renderMetrics();
    expect(body).toContain("# TYPE floorline_passes_ingested_total counter");
    expect(value(body, "floorline_ccr_store_bytes")).toBe(0);
  });

  it("keeps one registry per process, shared by every copy of the module", async () => {
    recordTraceStored();
    expect(existingSingleton<{ current?: unknown }>("metrics")?.current).toBeDefined();
    const copy = await import(`@/lib/observability/metrics?copy=${Date.now()}`);
    copy.recordTraceStored();
    expect(value((await renderMetrics()).body, "floorline_traces_stored_total")).toBe(2);
  });

  it.skipIf(!hasPromtool)("passes promtool check metrics with nothing printed", async () => {
    recordPassesIngested([{ content_class: "default", verdict: "SAFE_TO_COMPRESS", client_mismatch: true }]);
    observeRequest("/api/v1/passes", "POST", 201, 0.02);
    setStoreStatsSource(async () => ({ bytes: 1, entries: { live: 1, evicted: 0, expired: 0 } }));
    const { body } = await renderMetrics();
    const result = spawnSync("promtool", ["check", "metrics"], { input: body, encoding: "utf8" });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it.skipIf(!hasPromtool)(
    "serves every series the alerts of docs/metrics.md name, and promtool accepts the rules",
    async () => {
      const rules = blocksUnder("docs/metrics.md", "## Alerts").find((b) => b.lang === "yaml")?.code;
      if (!rules) throw new Error('no alert rules block under "## Alerts" in docs/metrics.md');
      const named = new Set(rules.match(/\bfloorline_[a-z_]+/g));
      expect(named.size).toBeGreaterThan(3);
      const { body } = await renderMetrics();
      for (const name of named) expect(body, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
      const dir = mkdtempSync(path.join(os.tmpdir(), "floorline-rules-"));
      try {
        const file = path.join(dir, "rules.yml");
        writeFileSync(file, rules);
        const result = spawnSync("promtool", ["check", "rules", file], { encoding: "utf8" });
        expect(result.status, result.stdout + result.stderr).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(!hasPromtool)("gives a scrape config in docs/metrics.md that promtool accepts", () => {
    const config = blocksUnder("docs/metrics.md", "## Scraping").find((b) => b.lang === "yaml")?.code;
    if (!config) throw new Error('no scrape config under "## Scraping" in docs/metrics.md');
    expect(config).toMatch(/metrics_path: \/metrics\b/);
    const dir = mkdtempSync(path.join(os.tmpdir(), "floorline-scrape-"));
    try {
      // promtool checks that the key file exists; the page names where it would live.
      const key = path.join(dir, "floorline.key");
      writeFileSync(key, "fl_example_key\n");
      const file = path.join(dir, "prometheus.yml");
      writeFileSync(file, config.replace("/etc/prometheus/floorline.key", key));
      const result = spawnSync("promtool", ["check", "config", file], { encoding: "utf8" });
      expect(result.status, result.stdout + result.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (!hasPromtool)
  console.warn("[metrics.test] promtool is not installed (apt-get install -y prometheus): the lint check is skipped");
