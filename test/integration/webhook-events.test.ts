// The outbox as the ingest paths fill it: events are written in the ingest's transaction,
// once per thing that happened, and never for a batch that was refused.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as boundariesRoute from "@/app/api/v1/boundaries/route";
import * as passesRoute from "@/app/api/v1/passes/route";
import * as tracesRoute from "@/app/api/v1/traces/route";
import * as webhooksRoute from "@/app/api/v1/webhooks/route";
import { getDb } from "@/db/index";
import { col, queryRows } from "@/db/sql";
import { renderMetrics } from "@/lib/observability/metrics";
import { setUpTestDatabase } from "../support/database";
import { post } from "./api-helpers";

setUpTestDatabase();

const receipt = (chain: string, n: number, density: number, extra: Record<string, unknown> = {}) => ({
  chain_id: chain,
  pass_id: `${chain}.p${n}`,
  pass_number: n,
  current_content_hash: `${chain}-h${n}`,
  input_content_hash: n > 1 ? `${chain}-h${n - 1}` : undefined,
  current_size_bytes: 4096,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: density,
  content_class: "events-test",
  ...extra,
});

async function events(type?: string) {
  const db = await getDb();
  return queryRows(
    db,
    sql`select e.type, e.data, (select count(*) from webhook_deliveries d where d.event_id = e.id) as deliveries
        from webhook_events e ${type ? sql`where e.type = ${type}` : sql``} order by e.created_at, e.id`,
    { type: col.text, data: col.jsonObject, deliveries: col.int },
  );
}

function metric(body: string, series: string): number {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE = "1";
  const created = await post(webhooksRoute.POST, "/api/v1/webhooks", {
    url: "http://127.0.0.1:9/hook",
    events: ["chain.collapsed", "chain.guarded", "chain.integrity_finding", "pass.client_mismatch", "trace.rejected"],
  });
  delete process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE;
  expect(created.status).toBe(201);
});

describe("events recorded by ingest", () => {
  it("announces a chain's collapse exactly once, however it arrives", async () => {
    const metricsBefore = (await renderMetrics()).body;
    expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: [receipt("ev-a", 1, 0.9)] })).status).toBe(201);
    expect(await events("chain.collapsed")).toEqual([]);
    expect(
      (await post(passesRoute.POST, "/api/v1/passes", { receipts: [receipt("ev-a", 2, 0.3), receipt("ev-a", 3, 0.2)] }))
        .status,
    ).toBe(201);
    expect((await post(passesRoute.POST, "/api/v1/passes", receipt("ev-a", 4, 0.1))).status).toBe(201);
    // A retry of a stored batch writes nothing and announces nothing.
    expect(
      (await post(passesRoute.POST, "/api/v1/passes", { receipts: [receipt("ev-a", 2, 0.3), receipt("ev-a", 3, 0.2)] }))
        .status,
    ).toBe(200);
    const collapsed = await events("chain.collapsed");
    expect(collapsed).toHaveLength(1);
    // At its collapse point, and why it counts as collapsed: passes went on from under the floor.
    expect(collapsed[0]?.data).toMatchObject({
      chain_id: "ev-a",
      pass_id: "ev-a.p2",
      pass_number: 2,
      verdict: "COLLAPSE_IMMINENT",
      reasons: ["continued_after_halt", "floor_passed_without_boundary"],
    });
    expect(String(collapsed[0]?.data.directive).length).toBeGreaterThan(0);
    expect(collapsed[0]?.deliveries).toBe(1);

    const after = (await renderMetrics()).body;
    const ingested = 'floorline_passes_ingested_total{content_class="events-test",verdict="COLLAPSE_IMMINENT"}';
    expect(metric(after, ingested) - metric(metricsBefore, ingested)).toBe(3);
    const collapses = 'floorline_collapses_total{content_class="events-test",verdict="COLLAPSE_IMMINENT"}';
    expect(metric(after, collapses) - metric(metricsBefore, collapses)).toBe(1);
    const started = 'floorline_chains_started_total{content_class="events-test"}';
    expect(metric(after, started) - metric(metricsBefore, started)).toBe(1);
  });

  it("announces a chain the guard saved as guarded, never as collapsed, and counts it apart", async () => {
    const metricsBefore = (await renderMetrics()).body;
    // As the SDKs report: the passes, the breach's pass among them, then the boundary that
    // answers it; each kind of answer on a chain of its own.
    const answers = [
      { chain: "ev-g-halt", strategy: "halt" },
      { chain: "ev-g-restore", strategy: "restore", restore_pass_id: "ev-g-restore.p2" },
      { chain: "ev-g-accept", strategy: "accept_loss" },
    ];
    for (const { chain, strategy, ...rest } of answers) {
      const passes = [receipt(chain, 1, 0.9), receipt(chain, 2, 0.9), receipt(chain, 3, 0.2)];
      expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: passes })).status).toBe(201);
      const boundary = { chain_id: chain, pass_number: 3, strategy, reason: "HALT", ...rest };
      expect((await post(boundariesRoute.POST, "/api/v1/boundaries", boundary)).status).toBe(201);
    }
    // The restored chain goes on from the restored pass's output: still a save.
    const fromRestored = receipt("ev-g-restore", 4, 0.9, { input_content_hash: "ev-g-restore-h2" });
    expect((await post(passesRoute.POST, "/api/v1/passes", fromRestored)).status).toBe(201);

    const ours = (e: { data: Record<string, unknown> }) => String(e.data.chain_id).startsWith("ev-g-");
    expect((await events("chain.collapsed")).filter(ours)).toEqual([]);
    const guarded = (await events("chain.guarded")).filter(ours);
    expect(guarded.map((e) => [e.data.chain_id, e.data.strategy, e.data.pass_id, e.data.verdict]).sort()).toEqual([
      ["ev-g-accept", "accept_loss", "ev-g-accept.p3", "COLLAPSE_IMMINENT"],
      ["ev-g-halt", "halt", "ev-g-halt.p3", "COLLAPSE_IMMINENT"],
      ["ev-g-restore", "restore", "ev-g-restore.p3", "COLLAPSE_IMMINENT"],
    ]);
    expect(guarded.every((e) => e.deliveries === 1)).toBe(true);

    const after = (await renderMetrics()).body;
    const collapses = 'floorline_collapses_total{content_class="events-test",verdict="COLLAPSE_IMMINENT"}';
    expect(metric(after, collapses) - metric(metricsBefore, collapses)).toBe(0);
    for (const strategy of ["halt", "restore", "accept_loss"]) {
      const series = `floorline_guarded_total{content_class="events-test",strategy="${strategy}"}`;
      expect(metric(after, series) - metric(metricsBefore, series), strategy).toBe(1);
    }
  });

  it("announces a save that did not hold as a collapse, once, with why", async () => {
    const metricsBefore = (await renderMetrics()).body;
    // Halted at its floor, then one more pass anyway; restored, then the next pass from the
    // breaching output instead.
    const passes = (chain: string) => [receipt(chain, 1, 0.9), receipt(chain, 2, 0.9), receipt(chain, 3, 0.2)];
    for (const chain of ["ev-x-halt", "ev-x-restore"])
      expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: passes(chain) })).status).toBe(201);
    const boundaries = [
      { chain_id: "ev-x-halt", pass_number: 3, strategy: "halt", reason: "HALT" },
      {
        chain_id: "ev-x-restore",
        pass_number: 3,
        strategy: "restore",
        restore_pass_id: "ev-x-restore.p2",
        reason: "r",
      },
    ];
    expect((await post(boundariesRoute.POST, "/api/v1/boundaries", { boundaries })).status).toBe(201);
    const onAnyway = [receipt("ev-x-halt", 4, 0.9), receipt("ev-x-restore", 4, 0.9)];
    expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: onAnyway })).status).toBe(201);
    expect((await post(passesRoute.POST, "/api/v1/passes", receipt("ev-x-halt", 5, 0.9))).status).toBe(201);

    const ours = (e: { data: Record<string, unknown> }) => String(e.data.chain_id).startsWith("ev-x-");
    // Each was announced guarded when its boundary came, and collapsed when it went past the floor.
    expect(
      (await events("chain.guarded"))
        .filter(ours)
        .map((e) => e.data.chain_id)
        .sort(),
    ).toEqual(["ev-x-halt", "ev-x-restore"]);
    const collapsed = (await events("chain.collapsed")).filter(ours);
    expect(collapsed.map((e) => [e.data.chain_id, e.data.pass_id, e.data.reasons]).sort()).toEqual([
      ["ev-x-halt", "ev-x-halt.p3", ["continued_after_halt"]],
      ["ev-x-restore", "ev-x-restore.p3", ["restore_not_honoured"]],
    ]);
    const after = (await renderMetrics()).body;
    const collapses = 'floorline_collapses_total{content_class="events-test",verdict="COLLAPSE_IMMINENT"}';
    expect(metric(after, collapses) - metric(metricsBefore, collapses)).toBe(2);
  });

  it("records nothing for a refused batch (422) or one that conflicts (409)", async () => {
    const count = (await events()).length;
    const invalid = await post(passesRoute.POST, "/api/v1/passes", {
      receipts: [receipt("ev-b", 1, 0.1), { ...receipt("ev-b", 2, 0.1), semantic_density_score: 9 }],
    });
    expect(invalid.status).toBe(422);
    const conflicting = await post(passesRoute.POST, "/api/v1/passes", {
      receipts: [receipt("ev-c", 1, 0.1), { ...receipt("ev-a", 4, 0.1), current_size_bytes: 1 }],
    });
    expect(conflicting.status).toBe(409);
    expect((await events()).length).toBe(count);
  });

  it("announces integrity findings and client mismatches once each", async () => {
    expect((await post(passesRoute.POST, "/api/v1/passes", receipt("ev-d", 1, 0.9))).status).toBe(201);
    // Pass 2 never arrives: pass 3 is a missing_pass finding. Its client said SAFE where the server did not.
    const gap = receipt("ev-d", 3, 0.2, { verdict: "SAFE_TO_COMPRESS" });
    expect((await post(passesRoute.POST, "/api/v1/passes", gap)).status).toBe(201);
    expect(
      (await post(passesRoute.POST, "/api/v1/passes", receipt("ev-d", 4, 0.9, { input_content_hash: "other" }))).status,
    ).toBe(201);
    const findings = (await events("chain.integrity_finding"))
      .filter((e) => e.data.chain_id === "ev-d")
      .map((e) => [e.data.kind, e.data.pass_id])
      .sort();
    // Pass 3's collapse is a HALT: pass 4 also continued after it. (One ingest's events share a moment: sorted.)
    expect(findings).toEqual([
      ["continued_after_halt", "ev-d.p4"],
      ["hash_mismatch", "ev-d.p4"],
      ["missing_pass", "ev-d.p3"],
    ]);
    const mismatches = await events("pass.client_mismatch");
    expect(mismatches.map((e) => e.data.pass_id)).toEqual(["ev-d.p3"]);
    expect(mismatches[0]?.data).toMatchObject({ client_verdict: "SAFE_TO_COMPRESS", verdict: "COLLAPSE_IMMINENT" });
    const metrics = (await renderMetrics()).body;
    expect(metric(metrics, 'floorline_integrity_findings_total{kind="missing_pass"}')).toBeGreaterThanOrEqual(1);
    expect(metric(metrics, 'floorline_client_mismatches_total{content_class="events-test"}')).toBeGreaterThanOrEqual(1);
  });

  it("announces a client's disagreement on a pass that changes nothing else about its chain", async () => {
    // Both passes are safe, in order, and disputed by their client: the second moves no status
    // (the chain shows a mismatch already), collapse or finding.
    const disputed = (n: number) => receipt("ev-m", n, 0.9, { verdict: "COLLAPSE_IMMINENT" });
    expect((await post(passesRoute.POST, "/api/v1/passes", disputed(1))).status).toBe(201);
    expect(
      (await post(passesRoute.POST, "/api/v1/passes", { receipts: [disputed(2), receipt("ev-m2", 1, 0.9)] })).status,
    ).toBe(201);
    const mismatches = (await events("pass.client_mismatch")).filter((e) => String(e.data.chain_id).startsWith("ev-m"));
    expect(mismatches.map((e) => e.data.pass_id)).toEqual(["ev-m.p1", "ev-m.p2"]);
    expect(mismatches[1]?.data).toMatchObject({ client_verdict: "COLLAPSE_IMMINENT", verdict: "SAFE_TO_COMPRESS" });
  });

  it("announces a finding that a late pass creates inside a chain, and nothing about old passes", async () => {
    const before = (await events("chain.integrity_finding")).length;
    const early = [1, 2, 3, 5].map((n) => receipt("ev-e", n, 0.9));
    expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: early })).status).toBe(201);
    // Pass 4 fills the gap, but its input is not pass 3's output.
    const late = receipt("ev-e", 4, 0.9, { input_content_hash: "not-h3" });
    expect((await post(passesRoute.POST, "/api/v1/passes", late)).status).toBe(201);
    const findings = (await events("chain.integrity_finding")).slice(before).map((e) => [e.data.kind, e.data.pass_id]);
    expect(findings).toEqual([
      ["missing_pass", "ev-e.p5"],
      ["hash_mismatch", "ev-e.p4"],
    ]);
  });

  it("announces the directive kinds, and judges the pass after a restore against the restored pass", async () => {
    const before = (await events("chain.integrity_finding")).length;
    // Pass 2 collapses (a HALT directive); pass 3 comes anyway.
    const halted = [receipt("ev-h", 1, 0.9), receipt("ev-h", 2, 0.1)];
    expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: halted })).status).toBe(201);
    expect((await post(passesRoute.POST, "/api/v1/passes", receipt("ev-h", 3, 0.9))).status).toBe(201);
    // Restores to pass 1 at pass 2: ev-r's pass 3 starts from pass 1's output (honoured, no
    // finding) and its pass 4 from elsewhere; ev-n's pass 3 takes pass 2's output anyway.
    for (const chain of ["ev-r", "ev-n"]) {
      const start = [receipt(chain, 1, 0.9), receipt(chain, 2, 0.9)];
      expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: start })).status).toBe(201);
      const restore = {
        chain_id: chain,
        pass_number: 2,
        strategy: "restore",
        restore_pass_id: `${chain}.p1`,
        reason: "r",
      };
      expect((await post(boundariesRoute.POST, "/api/v1/boundaries", restore)).status).toBe(201);
    }
    const honoured = [
      receipt("ev-r", 3, 0.9, { input_content_hash: "ev-r-h1" }),
      receipt("ev-r", 4, 0.9, { input_content_hash: "elsewhere" }),
    ];
    expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: honoured })).status).toBe(201);
    expect((await post(passesRoute.POST, "/api/v1/passes", receipt("ev-n", 3, 0.9))).status).toBe(201);
    const findings = (await events("chain.integrity_finding"))
      .slice(before)
      .map((e) => [e.data.kind, e.data.pass_id])
      .sort();
    expect(findings).toEqual([
      ["continued_after_halt", "ev-h.p3"],
      ["hash_mismatch", "ev-r.p4"],
      ["restore_not_honoured", "ev-n.p3"],
    ]);
    const metrics = (await renderMetrics()).body;
    expect(metric(metrics, 'floorline_integrity_findings_total{kind="continued_after_halt"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(metric(metrics, 'floorline_integrity_findings_total{kind="restore_not_honoured"}')).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("announces the finding a late halt or restore boundary creates, once", async () => {
    const before = (await events("chain.integrity_finding")).length;
    // Healthy passes first; then a halt at pass 2 (pass 3 went on anyway) and, on another
    // chain, a restore to pass 1 at pass 2 that pass 3 did not start from.
    for (const chain of ["ev-lh", "ev-lr"]) {
      const passes = [receipt(chain, 1, 0.9), receipt(chain, 2, 0.9), receipt(chain, 3, 0.9)];
      expect((await post(passesRoute.POST, "/api/v1/passes", { receipts: passes })).status).toBe(201);
    }
    expect((await events("chain.integrity_finding")).length).toBe(before);
    const late = [
      { chain_id: "ev-lh", pass_number: 2, strategy: "halt", reason: "stop" },
      { chain_id: "ev-lr", pass_number: 2, strategy: "restore", restore_pass_id: "ev-lr.p1", reason: "back" },
    ];
    expect((await post(boundariesRoute.POST, "/api/v1/boundaries", { boundaries: late })).status).toBe(201);
    // The retry stores nothing and announces nothing again.
    expect((await post(boundariesRoute.POST, "/api/v1/boundaries", { boundaries: late })).status).toBe(200);
    const findings = (await events("chain.integrity_finding"))
      .slice(before)
      .map((e) => [e.data.kind, e.data.pass_id])
      .sort();
    expect(findings).toEqual([
      ["continued_after_halt", "ev-lh.p3"],
      ["restore_not_honoured", "ev-lr.p3"],
    ]);
  });

  it("announces a fail-closed trace with the rejection", async () => {
    const refused = await post(tracesRoute.POST, "/api/v1/traces", {
      trace_id: "ev-trace",
      nodes: [{ node_id: "bad", node_type: "VERIFIED_CONCLUSION", content: "unproven" }],
    });
    expect(refused.status).toBe(422);
    const rejected = await events("trace.rejected");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.data).toMatchObject({ trace_id: "ev-trace", node_id: "bad" });
    expect(metric((await renderMetrics()).body, "floorline_trace_rejections_total")).toBeGreaterThanOrEqual(1);
  });
});
