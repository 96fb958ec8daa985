// The two integrity kinds that say an agent ignored its directives: continued_after_halt and
// restore_not_honoured, on the demo chains, in the chain API, the chart series, the passes
// table and the chain summaries the lists filter on.
import { describe, expect, it } from "vitest";
import { getChainSeries } from "@/db/queries/chain-series";
import { getChain, getChainSummary, listChains } from "@/db/queries/chains";
import { listChainPasses } from "@/db/queries/passes";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { ingestPasses } from "@/db/ingest/passes";
import { GET as getChainRoute } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChainsRoute } from "@/app/api/v1/chains/route";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { call } from "./api-helpers";
import { jsonRequest, setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

const kindsOf = (findings: { kind: string; pass_number: number }[]) => findings.map((f) => [f.kind, f.pass_number]);

describe("directive integrity kinds on the demo chains", () => {
  it("flags demo-schema-truncation pass 6: it compressed pass 5's output after the restore to pass 4", async () => {
    const answer = await call(getChainRoute, jsonRequest("/api/v1/chains/demo-schema-truncation"), {
      params: Promise.resolve({ chain_id: "demo-schema-truncation" }),
    });
    expect(answer.status).toBe(200);
    expect(kindsOf(answer.body.integrity)).toEqual([["restore_not_honoured", 6]]);
    expect(answer.body.integrity[0].detail).toContain("restored pass 4");
  });

  it("flags demo-semantic-void pass 5: it arrived after the halt at pass 4", async () => {
    const chain = await getChain("demo-semantic-void");
    expect(kindsOf(chain?.integrity ?? [])).toEqual([["continued_after_halt", 5]]);
    expect(chain?.integrity[0]?.detail).toContain("halted at pass 4");
  });

  it("leaves the accepted loss and the healthy chain alone", async () => {
    expect((await getChain("demo-encoding-degradation"))?.integrity).toEqual([]);
    expect((await getChain("demo-healthy-orders"))?.integrity).toEqual([]);
  });

  it("draws them on the chart and marks them in the passes table", async () => {
    for (const [chainId, kind, number] of [
      ["demo-schema-truncation", "restore_not_honoured", 6],
      ["demo-semantic-void", "continued_after_halt", 5],
    ] as const) {
      const chain = await getChain(chainId);
      const series = await getChainSeries(chainId, chain?.boundaries ?? []);
      expect(series.findings.map((f) => [f.kind, f.pass_number])).toEqual([[kind, number]]);
      expect(series.points.find((p) => p.pass_number === number)?.integrity).toBe(kind);
      const page = await listChainPasses(chainId, { from: 0 }, 50, chain?.boundaries ?? []);
      expect(page.rows.flatMap((r) => (r.integrity ? [[r.integrity.kind, r.pass_number]] : []))).toEqual([
        [kind, number],
      ]);
    }
  });

  it("counts them in the chain summaries and filters by them", async () => {
    expect((await getChainSummary("demo-schema-truncation"))?.statuses).toContain("restore_not_honoured");
    expect((await getChainSummary("demo-semantic-void"))?.statuses).toContain("continued_after_halt");
    const ids = async (status: string) => {
      const answer = await call(listChainsRoute, jsonRequest(`/api/v1/chains?status=${status}`));
      expect(answer.status).toBe(200);
      // Main's demo also seeds the recommendation's sr-fail-* chains, which go on after a HALT
      // (a genuine continued_after_halt each); this test is about the hand-made demo chains.
      return answer.body.items
        .map((c: { chain_id: string }) => c.chain_id)
        .filter((id: string) => !id.startsWith("sr-"))
        .sort();
    };
    expect(await ids("continued_after_halt")).toEqual(["demo-semantic-void"]);
    expect(await ids("restore_not_honoured")).toEqual(["demo-schema-truncation"]);
    const { items } = await listChains({
      status: ["broken_integrity"],
      sort: "last_activity",
      order: "desc",
      limit: 50,
    });
    // The opaque compactor's demo chain lost canaries (docs/canaries.md): integrity findings too.
    expect(
      items
        .map((c) => c.chain_id)
        .filter((id) => !id.startsWith("sr-"))
        .sort(),
    ).toEqual(["demo-broken-receipts", "demo-opaque-canaries", "demo-schema-truncation", "demo-semantic-void"]);
  });
});

describe("directive integrity kinds as receipts arrive", () => {
  const receipt = (chain: string, n: number, input: string | null, out: string, extra = {}) =>
    passReceiptSchema.parse({
      chain_id: chain,
      pass_id: `${chain}.p${n}`,
      pass_number: n,
      input_content_hash: input,
      current_content_hash: out,
      current_size_bytes: 5000,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
      content_class: "summary",
      ...extra,
    });

  it("flags the first pass after a HALT directive once, whether sent in one batch or one by one", async () => {
    // "summary" allows 8 passes: pass 9 is told to HALT; 10-12 come anyway.
    const chain = "after-halt";
    const hashes = Array.from({ length: 13 }, (_, i) => `h${i}`);
    await ingestPasses(
      Array.from({ length: 9 }, (_, i) => receipt(chain, i + 1, i === 0 ? null : `h${i}`, `h${i + 1}`)),
    );
    for (const n of [10, 11, 12]) await ingestPasses([receipt(chain, n, hashes[n - 1] ?? null, `h${n}`)]);
    const chainDetail = await getChain(chain);
    expect(chainDetail?.passes.find((p) => p.pass_number === 9)?.directive).toBe("HALT: Pass 9 > 8, use previous.");
    // One finding per halt, like one per gap: on pass 10, the first to ignore it.
    expect(kindsOf(chainDetail?.integrity ?? [])).toEqual([["continued_after_halt", 10]]);
    const summary = await getChainSummary(chain);
    expect(summary?.integrity_findings).toBe(1);
    expect(summary?.statuses).toContain("continued_after_halt");
  });

  it("judges the pass after a restore against the restored pass, before or after the boundary arrives", async () => {
    for (const [chain, boundaryFirst] of [
      ["restore-a", false],
      ["restore-b", true],
    ] as const) {
      await ingestPasses([1, 2, 3].map((n) => receipt(chain, n, n === 1 ? null : `h${n - 1}`, `h${n}`)));
      const boundary = {
        chain_id: chain,
        pass_number: 3,
        strategy: "restore" as const,
        reason: "pass 3 lost fields",
        restore_pass_id: `${chain}.p2`,
      };
      if (boundaryFirst) await ingestBoundaries([boundary]);
      // Honoured: pass 4 starts from pass 2's output (no hash_mismatch although pass 3's output differs).
      await ingestPasses([receipt(chain, 4, "h2", "h4")]);
      if (!boundaryFirst) await ingestBoundaries([boundary]);
      expect((await getChain(chain))?.integrity).toEqual([]);
      expect((await getChainSummary(chain))?.integrity_findings).toBe(0);
    }
    // Not honoured: pass 4 took pass 3's output.
    const chain = "restore-c";
    await ingestPasses([1, 2, 3].map((n) => receipt(chain, n, n === 1 ? null : `h${n - 1}`, `h${n}`)));
    await ingestBoundaries([
      { chain_id: chain, pass_number: 3, strategy: "restore", reason: "r", restore_pass_id: `${chain}.p2` },
    ]);
    await ingestPasses([receipt(chain, 4, "h3", "h4")]);
    expect(kindsOf((await getChain(chain))?.integrity ?? [])).toEqual([["restore_not_honoured", 4]]);
    expect((await getChainSummary(chain))?.statuses).toContain("restore_not_honoured");
  });
});
