// Chains through the real route handlers: receipts and boundaries in, the chain, the list
// (filters, sorts, keyset pages), the export and the integrity findings out. Long because its
// sections share the chains stored once at the top.
import { beforeAll, describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { GET as exportChains } from "@/app/api/v1/exports/chains/route";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, expectError, post } from "./api-helpers";
import { at } from "../support/at";
import { chainOutcomeOf } from "@/lib/chains/outcome";
import type { IntegrityKind } from "@/lib/chains/integrity";
import type { Verdict } from "@/lib/guard/guard";

setUpTestDatabase();

interface Summary {
  chain_id: string;
  content_class: string;
  pass_count: number;
  statuses: string[];
  integrity_findings: number;
  client_mismatches: number;
  collapse_point: { pass_id: string; pass_number: number; verdict: string } | null;
  min_semantic_density: number | null;
  min_size_bytes: number | null;
  last_activity_at: string;
}

const list = async (query = ""): Promise<{ items: Summary[]; next_cursor: string | null }> => {
  const answer = await call(listChains, jsonRequest(`/api/v1/chains?${query}`));
  expect(answer.status, answer.text).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(["items", "next_cursor"]);
  return answer.body;
};
const detail = async (chainId: string) => {
  const answer = await call(
    getChain,
    jsonRequest(`/api/v1/chains/${encodeURIComponent(chainId)}`),
    params({ chain_id: chainId }),
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};
const ingest = async (receipts: unknown[]) => {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.body.results;
};

/** Walks every page of a listing; fails on a loop. */
async function walk(query: string, limit: number): Promise<Summary[][]> {
  const pages: Summary[][] = [];
  let cursor: string | null = null;
  do {
    const page = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    pages.push(page.items);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    cursor = page.next_cursor;
    expect(pages.length).toBeLessThan(1_000);
  } while (cursor);
  return pages;
}

// A lenient class so that only the gates a test aims at fire.
const LENIENT = { min_size_bytes: 10, min_semantic_density: 0.2, max_pass_number: 50 };

type P = {
  n: number;
  id?: string;
  inHash?: string | null;
  outHash?: string;
  density?: number;
  size?: number;
  parseable?: boolean;
  verdict?: string;
};
function receipts(chainId: string, passes: P[], contentClass = "lenient") {
  return passes.map((p) => ({
    chain_id: chainId,
    pass_id: p.id ?? `${chainId}-p${p.n}`,
    pass_number: p.n,
    input_content_hash: p.inHash === undefined ? (p.n > 0 ? `h${p.n - 1}` : null) : p.inHash,
    current_content_hash: p.outHash ?? `h${p.n}`,
    current_size_bytes: p.size ?? 1000,
    is_parseable: p.parseable ?? true,
    schema_valid: true,
    semantic_density_score: p.density ?? 0.9,
    content_class: contentClass,
    ...(p.verdict ? { verdict: p.verdict } : {}),
  }));
}

beforeAll(async () => {
  expect(
    (
      await call(
        putPolicy,
        jsonRequest("/api/v1/policies/lenient", { method: "PUT", body: LENIENT }),
        params({ content_class: "lenient" }),
      )
    ).status,
  ).toBe(201);
  await ingest([
    // Out of order on purpose: the chain is read back in pass order.
    ...receipts("healthy", [{ n: 3 }, { n: 1 }, { n: 2 }]),
    ...receipts("imminent", [{ n: 1 }, { n: 2 }, { n: 3, density: 0.1 }, { n: 4, size: 1 }]),
    ...receipts("breach", [{ n: 1 }, { n: 2 }, { n: 4, parseable: false, inHash: null }, { n: 3, size: 2 }]),
    ...receipts("mismatch", [{ n: 1 }, { n: 2, verdict: "COLLAPSE_IMMINENT" }]),
    ...receipts("hash-broken", [{ n: 1 }, { n: 2, inHash: "not-h1" }, { n: 3 }]),
    ...receipts("gappy", [{ n: 1 }, { n: 4 }]),
    ...receipts("late-start", [{ n: 3 }, { n: 4 }]),
    ...receipts("repeated", [{ n: 1 }, { n: 2 }, { n: 2, id: "repeated-p2-again" }]),
    ...receipts("zero-start", [{ n: 0, inHash: null }, { n: 1 }, { n: 2 }]),
    ...receipts("Other_Class%", [{ n: 1 }], "other"),
  ]);
});

describe("GET /api/v1/chains/{chain_id}", () => {
  it("lists passes in pass order with their server verdicts", async () => {
    const chain = await detail("healthy");
    expect(chain.chain_id).toBe("healthy");
    expect(chain.passes.map((p: { pass_number: number }) => p.pass_number)).toEqual([1, 2, 3]);
    expect(chain.passes.map((p: { verdict: string }) => p.verdict)).toEqual([
      "NO_RECURSIVE_COMPRESSION",
      "SAFE_TO_COMPRESS",
      "SAFE_TO_COMPRESS",
    ]);
    expect(chain.passes[1]).toMatchObject({
      pass_id: "healthy-p2",
      input_content_hash: "h1",
      current_content_hash: "h2",
      policy_version: 1,
      client_mismatch: false,
    });
    expect(chain.collapse_point).toBeNull();
    expect(chain.integrity).toEqual([]);
    expect(chain.boundaries).toEqual([]);
  });

  it("the collapse point is the first COLLAPSE_IMMINENT or FLOOR_BREACH_DETECTED pass", async () => {
    expect((await detail("imminent")).collapse_point).toEqual({
      pass_id: "imminent-p3",
      pass_number: 3,
      verdict: "COLLAPSE_IMMINENT",
    });
    // Pass 4 (breach) arrived before pass 3 (imminent); pass order decides.
    expect((await detail("breach")).collapse_point).toEqual({
      pass_id: "breach-p3",
      pass_number: 3,
      verdict: "COLLAPSE_IMMINENT",
    });
  });

  it("finds a hash mismatch against the previous pass's output", async () => {
    const chain = await detail("hash-broken");
    expect(
      chain.integrity.map((f: { kind: string; pass_id: string; pass_number: number }) => [
        f.kind,
        f.pass_id,
        f.pass_number,
      ]),
    ).toEqual([["hash_mismatch", "hash-broken-p2", 2]]);
    expect(typeof chain.integrity[0].detail).toBe("string");
  });

  it("finds missing passes, including before a late start", async () => {
    expect(
      (await detail("gappy")).integrity.map((f: { kind: string; pass_number: number }) => [f.kind, f.pass_number]),
    ).toEqual([["missing_pass", 4]]);
    expect(
      (await detail("late-start")).integrity.map((f: { kind: string; pass_number: number }) => [f.kind, f.pass_number]),
    ).toEqual([["missing_pass", 3]]);
    expect((await detail("zero-start")).integrity).toEqual([]);
  });

  it("finds a repeated pass number", async () => {
    const chain = await detail("repeated");
    expect(chain.passes).toHaveLength(3);
    expect(chain.integrity.map((f: { kind: string; pass_id: string }) => [f.kind, f.pass_id])).toEqual([
      ["repeated_pass", "repeated-p2-again"],
    ]);
  });

  it("counts client mismatches", async () => {
    const chain = await detail("mismatch");
    expect(chain.passes.map((p: { client_mismatch: boolean }) => p.client_mismatch)).toEqual([false, true]);
  });

  it("an unknown chain is 404 in the error shape", async () => {
    expectError(
      await call(getChain, jsonRequest("/api/v1/chains/nope"), params({ chain_id: "nope" })),
      404,
      "not_found",
    );
  });
});

describe("GET /api/v1/chains: filters", () => {
  const ids = async (query: string) => (await list(`${query}&limit=500`)).items.map((c) => c.chain_id).sort();

  it("filters by status", async () => {
    expect(await ids("status=collapse_imminent")).toEqual(["breach", "imminent"]);
    expect(await ids("status=floor_breached")).toEqual(["breach"]);
    expect(await ids("status=client_mismatch")).toEqual(["mismatch"]);
    // "imminent" and "breach" went on after their HALT directive (pass 3): continued_after_halt.
    expect(await ids("status=broken_integrity")).toEqual([
      "breach",
      "gappy",
      "hash-broken",
      "imminent",
      "late-start",
      "repeated",
    ]);
    expect(await ids("status=continued_after_halt")).toEqual(["breach", "imminent"]);
    expect(await ids("status=healthy")).toEqual(["Other_Class%", "healthy", "zero-start"].sort());
  });

  it("collapsed is content past a floor: both went on after the floor their HALT named, with no boundary", async () => {
    expect(await ids("status=collapsed")).toEqual(["breach", "imminent"]);
    // The client mismatch's chain says COLLAPSE_IMMINENT only on the client's side: no floor reached.
    expect(await ids("status=guarded")).toEqual([]);
  });

  it("takes several statuses at once, as a comma list or repeated keys: any of them", async () => {
    expect(await ids("status=floor_breached,client_mismatch")).toEqual(["breach", "mismatch"]);
    expect(await ids("status=floor_breached&status=client_mismatch")).toEqual(["breach", "mismatch"]);
    expect(await ids("status=healthy,collapsed&q=e")).toEqual(
      ["Other_Class%", "breach", "healthy", "imminent", "zero-start"].sort(),
    );
  });

  it("refuses an unknown status with 422 naming it, never ignores it", async () => {
    for (const query of ["status=collapsedd", "status=collapsed,nope", "status=collapsed&status=nope", "status="]) {
      const answer = await call(listChains, jsonRequest(`/api/v1/chains?${query}`));
      expect(answer.status, query).toBe(422);
      expect(answer.body.error.code).toBe("invalid_query");
    }
    const answer = await call(listChains, jsonRequest("/api/v1/chains?status=collapsed,nope"));
    expect(JSON.stringify(answer.body.error.issues)).toContain('unknown status \\"nope\\"');
    const exported = await call(exportChains, jsonRequest("/api/v1/exports/chains?status=nope"));
    expect(exported.status).toBe(422);
  });

  it("filters by content class", async () => {
    expect(await ids("content_class=other")).toEqual(["Other_Class%"]);
    expect((await ids("content_class=lenient")).length).toBe(9);
    expect(await ids("content_class=none")).toEqual([]);
  });

  it("q matches chain ids case-insensitively, with % and _ taken literally", async () => {
    expect(await ids("q=HEALTH")).toEqual(["healthy"]);
    expect(await ids("q=other_class%25")).toEqual(["Other_Class%"]);
    expect(await ids("q=%25")).toEqual(["Other_Class%"]);
    expect(await ids("q=_")).toEqual(["Other_Class%"]);
  });

  it("combines filters", async () => {
    expect(await ids("status=broken_integrity&q=hash")).toEqual(["hash-broken"]);
    expect(await ids("status=collapse_imminent&q=IMM")).toEqual(["imminent"]);
  });

  it("the summary row agrees with the chain detail: statuses, counts and collapse point", async () => {
    for (const summary of (await list("limit=500")).items) {
      const chain = await detail(summary.chain_id);
      expect(summary, summary.chain_id).toMatchObject(expectedSummary(chain));
    }
  });
});

type Detail = {
  passes: Array<{
    pass_id: string;
    pass_number: number;
    verdict: string;
    effective_verdict: Verdict;
    client_mismatch: boolean;
    semantic_density_score: number;
    current_size_bytes: number;
    server_checks?: { semantic_density_score?: number } | null;
  }>;
  boundaries: Array<{ pass_number: number }>;
  integrity: Array<{ kind: IntegrityKind }>;
  collapse_point: unknown;
};

/** What the summary row must say, worked out from the chain's detail alone. */
function expectedSummary(chain: Detail) {
  const verdicts = new Set(chain.passes.map((p) => p.verdict));
  const mismatches = chain.passes.filter((p) => p.client_mismatch).length;
  // A save or a failure, by the plain rule (lib/chains/outcome.ts), first.
  const outcome = chainOutcomeOf(chain.passes, chain.boundaries, chain.integrity);
  const statuses = [
    ...(outcome ? [outcome] : []),
    ...(verdicts.has("COLLAPSE_IMMINENT") ? ["collapse_imminent"] : []),
    ...(verdicts.has("FLOOR_BREACH_DETECTED") ? ["floor_breached"] : []),
    ...(mismatches > 0 ? ["client_mismatch"] : []),
    ...(chain.integrity.length > 0 ? ["broken_integrity"] : []),
    ...(chain.integrity.some((f) => f.kind === "continued_after_halt") ? ["continued_after_halt"] : []),
    ...(chain.integrity.some((f) => f.kind === "restore_not_honoured") ? ["restore_not_honoured"] : []),
  ];
  const last = chain.passes.at(-1);
  const measured = chain.passes.flatMap((p) => p.server_checks?.semantic_density_score ?? []);
  return {
    pass_count: chain.passes.length,
    boundary_count: chain.boundaries.length,
    integrity_findings: chain.integrity.length,
    client_mismatches: mismatches,
    collapse_point: chain.collapse_point,
    statuses: statuses.length > 0 ? statuses : ["healthy"],
    last_pass_id: last?.pass_id ?? null,
    last_pass_number: last?.pass_number ?? null,
    last_verdict: last?.verdict ?? null,
    min_semantic_density: last ? Math.min(...chain.passes.map((p) => p.semantic_density_score)) : null,
    min_measured_density: measured.length > 0 ? Math.min(...measured) : null,
    min_size_bytes: last ? Math.min(...chain.passes.map((p) => p.current_size_bytes)) : null,
  };
}

describe("integrity count (SQL) equals integrity findings (lib/chains/integrity.ts) on generated chains", () => {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };

  // Summaries are kept up to date as batches arrive, so the chains arrive over many batches:
  // half strictly in pass order (as agents report), half shuffled, some after a boundary.
  beforeAll(async () => {
    const arrivals: unknown[][] = [];
    for (let c = 0; c < 60; c++) {
      const chainId = `gen-${String(c).padStart(3, "0")}`;
      const passes: P[] = [];
      let n = Math.floor(random() * 3);
      for (let i = 0; i < 2 + Math.floor(random() * 8); i++) {
        const r = random();
        if (r < 0.15)
          n += 2 + Math.floor(random() * 3); // a gap
        else if (r > 0.85 && passes.length > 0)
          n += 0; // a repeat
        else if (passes.length > 0) n += 1;
        passes.push({
          n,
          id: `${chainId}-${i}`,
          inHash: random() < 0.15 ? null : random() < 0.2 ? "wrong" : `h${n - 1}`,
          outHash: `h${n}`,
          density: random() < 0.1 ? 0.05 : 0.9,
        });
      }
      if (c >= 30) passes.sort(() => random() - 0.5);
      arrivals.push(receipts(chainId, passes));
      if (c < 10) {
        const answer = await post(postBoundaries, "/api/v1/boundaries", {
          chain_id: chainId,
          pass_number: 9,
          strategy: "halt",
          reason: "r",
        });
        expect(answer.status).toBe(201);
      }
    }
    while (arrivals.some((a) => a.length > 0)) {
      const batch = arrivals.flatMap((a) => a.splice(0, Math.floor(random() * 3)));
      if (batch.length > 0) await ingest(batch);
    }
  });

  it("for every generated chain", async () => {
    const items = (await list("q=gen-&limit=500")).items;
    expect(items).toHaveLength(60);
    let findings = 0;
    const kinds = new Set<string>();
    for (const summary of items) {
      const chain = await detail(summary.chain_id);
      expect(summary.integrity_findings, summary.chain_id).toBe(chain.integrity.length);
      expect(summary, summary.chain_id).toMatchObject(expectedSummary(chain));
      findings += chain.integrity.length;
      for (const f of chain.integrity) kinds.add(f.kind);
    }
    // The generator really produced findings of every kind.
    expect(findings).toBeGreaterThan(20);
    expect([...kinds].sort()).toEqual(["continued_after_halt", "hash_mismatch", "missing_pass", "repeated_pass"]);
  });
});

describe("GET /api/v1/chains: sorting and keyset pagination", () => {
  const SORTS: Array<[sort: string, value: (c: Summary) => number]> = [
    ["last_activity", (c) => Date.parse(c.last_activity_at)],
    ["pass_count", (c) => c.pass_count],
    ["min_density", (c) => c.min_semantic_density ?? 2],
    ["min_size", (c) => c.min_size_bytes ?? Number.MAX_SAFE_INTEGER],
  ];

  it.each(
    SORTS.flatMap(
      ([sort, value]) =>
        [
          [sort, "asc", value],
          [sort, "desc", value],
        ] as const,
    ),
  )(
    "sort=%s order=%s: ordered by the key, and pages of 7 visit every chain exactly once in the same order",
    async (sort, order, value) => {
      const full = (await list(`sort=${sort}&order=${order}&limit=500`)).items;
      expect(full.length).toBe(70);
      const keys = full.map(value);
      for (let i = 1; i < keys.length; i++) {
        if (order === "asc") expect(at(keys, i)).toBeGreaterThanOrEqual(at(keys, i - 1));
        else expect(at(keys, i)).toBeLessThanOrEqual(at(keys, i - 1));
      }
      const pages = await walk(`sort=${sort}&order=${order}`, 7);
      const walked = pages.flat().map((c) => c.chain_id);
      expect(walked).toEqual(full.map((c) => c.chain_id));
      expect(new Set(walked).size).toBe(walked.length);
      expect(pages.length).toBe(10);
    },
  );

  it("the default order puts chains that need attention first, then newest activity first", async () => {
    const byDefault = (await list("limit=500")).items;
    expect(byDefault.map((c) => c.chain_id)).toEqual(
      (await list("sort=attention&order=desc&limit=500")).items.map((c) => c.chain_id),
    );
    // Collapsed; any other problem (a floor reached is one unless a boundary answered it); none.
    const urgency = (c: Summary) => {
      if (c.statuses.includes("collapsed")) return 2;
      const saved = c.statuses.includes("guarded");
      const floor = (s: string) => s === "floor_breached" || s === "collapse_imminent";
      return c.statuses.some((s) => s !== "healthy" && s !== "guarded" && !(saved && floor(s))) ? 1 : 0;
    };
    const keys = byDefault.map((c) => [urgency(c), Date.parse(c.last_activity_at), c.chain_id] as const);
    for (let i = 1; i < keys.length; i++) {
      const [u0, t0, id0] = at(keys, i - 1);
      const [u1, t1, id1] = at(keys, i);
      expect(u1 < u0 || (u1 === u0 && (t1 < t0 || (t1 === t0 && id1 < id0))), `${id0} before ${id1}`).toBe(true);
    }
    // Every group is there: collapsed, other problems, and the rest.
    expect(new Set(keys.map(([u]) => u))).toEqual(new Set([0, 1, 2]));
    expect(at(keys, 0)[0]).toBe(2);
  });

  it.each(["desc", "asc"])(
    "sort=attention order=%s: pages of 7 visit every chain once, in the full list's order",
    async (order) => {
      const full = (await list(`sort=attention&order=${order}&limit=500`)).items.map((c) => c.chain_id);
      expect(full).toHaveLength(70);
      const walked = (await walk(`sort=attention&order=${order}`, 7)).flat().map((c) => c.chain_id);
      expect(walked).toEqual(full);
      // Ascending is the same order backwards.
      if (order === "asc")
        expect(full).toEqual((await list("sort=attention&limit=500")).items.map((c) => c.chain_id).reverse());
    },
  );

  it("a cursor of another sort is 422 on the attention order, and the attention cursor on another sort", async () => {
    const { next_cursor } = await list("limit=5");
    expectError(
      await call(listChains, jsonRequest(`/api/v1/chains?sort=last_activity&cursor=${next_cursor}`)),
      422,
      "invalid_query",
    );
    const byActivity = (await list("sort=last_activity&limit=5")).next_cursor;
    expectError(await call(listChains, jsonRequest(`/api/v1/chains?cursor=${byActivity}`)), 422, "invalid_query");
  });

  it("filters hold across pages", async () => {
    const pages = await walk("status=broken_integrity&sort=pass_count", 2);
    const all = (await list("status=broken_integrity&sort=pass_count&limit=500")).items;
    expect(pages.flat().map((c) => c.chain_id)).toEqual(all.map((c) => c.chain_id));
    expect(pages.flat().every((c) => c.statuses.includes("broken_integrity"))).toBe(true);
  });

  it("the last page has next_cursor null; limit defaults to 50", async () => {
    const first = await list("");
    expect(first.items).toHaveLength(50);
    expect(first.next_cursor).not.toBeNull();
    const second = await list(`cursor=${first.next_cursor}`);
    expect(second.items).toHaveLength(20);
    expect(second.next_cursor).toBeNull();
  });

  it("a tampered cursor is 422, not a wrong page", async () => {
    const { next_cursor } = await list("limit=5");
    expectError(await call(listChains, jsonRequest(`/api/v1/chains?cursor=${next_cursor}x`)), 422, "invalid_query");
  });
});

describe("saves and failures: guarded and collapsed", () => {
  // Their own class and ids, added after the sections above counted theirs.
  const ids = async (query: string) => (await list(`${query}&q=guard-&limit=500`)).items.map((c) => c.chain_id).sort();
  const chain = (id: string, passes: P[]) => receipts(id, passes, "lenient");
  const boundary = async (body: Record<string, unknown>) => {
    const answer = await post(postBoundaries, "/api/v1/boundaries", { reason: "the guard said so", ...body });
    expect(answer.status, answer.text).toBe(201);
  };

  beforeAll(async () => {
    // Pass 3 falls under the density floor (COLLAPSE_IMMINENT) or stops parsing (a breach).
    await ingest([
      ...chain("guard-halted", [{ n: 1 }, { n: 2 }, { n: 3, density: 0.1 }]),
      ...chain("guard-restored", [{ n: 1 }, { n: 2 }, { n: 3, parseable: false }]),
      ...chain("guard-accepted", [{ n: 1 }, { n: 2 }, { n: 3, parseable: false }]),
      ...chain("guard-halt-ignored", [{ n: 1 }, { n: 2 }, { n: 3, density: 0.1 }]),
      ...chain("guard-restore-ignored", [{ n: 1 }, { n: 2 }, { n: 3, parseable: false }]),
      ...chain("guard-unanswered", [{ n: 1 }, { n: 2 }, { n: 3, density: 0.1 }]),
      ...chain("guard-at-floor", [{ n: 1 }, { n: 2, density: 0.1 }]),
    ]);
    await boundary({ chain_id: "guard-halted", pass_number: 3, strategy: "halt" });
    await boundary({
      chain_id: "guard-restored",
      pass_number: 3,
      strategy: "restore",
      restore_pass_id: "guard-restored-p2",
    });
    await boundary({ chain_id: "guard-accepted", pass_number: 3, strategy: "accept_loss" });
    await boundary({ chain_id: "guard-halt-ignored", pass_number: 3, strategy: "halt" });
    await boundary({
      chain_id: "guard-restore-ignored",
      pass_number: 3,
      strategy: "restore",
      restore_pass_id: "guard-restore-ignored-p2",
    });
    await ingest([
      // From the restored pass's output (h2): the restore honoured.
      ...chain("guard-restored", [{ n: 4, inHash: "h2" }]),
      // From the breaching output, the loss accepted.
      ...chain("guard-accepted", [{ n: 4 }]),
      ...chain("guard-halt-ignored", [{ n: 4 }]),
      // From pass 3's output, not the restored pass 2's.
      ...chain("guard-restore-ignored", [{ n: 4, inHash: "h3" }]),
      // On from content under the floor, no boundary said anything.
      ...chain("guard-unanswered", [{ n: 4 }]),
    ]);
  });

  it("a halt, an honoured restore or an accepted loss at the floor is guarded; going past it is collapsed", async () => {
    expect(await ids("status=guarded")).toEqual(["guard-accepted", "guard-halted", "guard-restored"]);
    expect(await ids("status=collapsed")).toEqual(["guard-halt-ignored", "guard-restore-ignored", "guard-unanswered"]);
    // A floor reached at the last pass, with no word from the agent yet: neither.
    const atFloor = (await list("q=guard-at-floor")).items[0];
    expect(atFloor?.statuses).toEqual(["collapse_imminent"]);
    // A guarded chain still says which floor it reached; never both words.
    const byId = new Map((await list("q=guard-&limit=500")).items.map((c) => [c.chain_id, c.statuses]));
    expect(byId.get("guard-halted")).toEqual(["guarded", "collapse_imminent"]);
    expect(byId.get("guard-restored")).toEqual(["guarded", "floor_breached"]);
    for (const statuses of byId.values())
      expect(statuses.includes("guarded") && statuses.includes("collapsed")).toBe(false);
    expect(await ids("status=guarded,collapsed")).toHaveLength(6);
  });

  it("the summaries agree with the chain details, by the plain rule", async () => {
    for (const summary of (await list("q=guard-&limit=500")).items) {
      expect(summary, summary.chain_id).toMatchObject(expectedSummary(await detail(summary.chain_id)));
    }
  });

  it("the export filters the same way", async () => {
    const response = await exportChains(jsonRequest("/api/v1/exports/chains?format=json&status=guarded&q=guard-"), {
      params: Promise.resolve({}),
    });
    expect(response.status).toBe(200);
    const items = (await response.json()) as Summary[];
    expect(items.map((c) => c.chain_id).sort()).toEqual(["guard-accepted", "guard-halted", "guard-restored"]);
    const csv = await exportChains(jsonRequest("/api/v1/exports/chains?format=csv&status=collapsed&q=guard-"), {
      params: Promise.resolve({}),
    });
    const lines = (await csv.text()).trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).every((l) => l.includes("collapsed"))).toBe(true);
  });

  it("the default order lists the collapsed first and the saves with the healthy chains, after the unanswered floor", async () => {
    const order = (await list("q=guard-&limit=500")).items.map((c) => c.chain_id);
    const position = (id: string) => order.indexOf(id);
    for (const failed of ["guard-halt-ignored", "guard-restore-ignored", "guard-unanswered"])
      expect(position(failed)).toBeLessThan(position("guard-at-floor"));
    for (const saved of ["guard-accepted", "guard-halted", "guard-restored"])
      expect(position("guard-at-floor")).toBeLessThan(position(saved));
  });
});
