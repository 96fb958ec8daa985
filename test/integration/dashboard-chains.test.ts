// The chains list behind /chains and its exports: keyset pages in both directions for every
// sort, server-side filters, and streamed CSV/JSON exports of exactly the filtered set.
import { describe, expect, it } from "vitest";
import { jsonRequest, setUpTestDatabase } from "../support/database";
import { countChains, iterateChains, listChainClasses, listChains } from "@/db/queries/chains";
import type { ChainKey } from "@/lib/chains/types";
import { ingestPasses } from "@/db/ingest/passes";
import { GET as exportChains } from "@/app/api/v1/exports/chains/route";
import { GET as listChainsApi } from "@/app/api/v1/chains/route";
import { CHAIN_SORTS, defaultOrder, type ChainSummaryWire } from "@/lib/schemas/chains";
import type { PassReceipt } from "@/lib/schemas/passes";
import { at } from "../support/at";

setUpTestDatabase();

const CHAINS = 137;

function receiptsFor(i: number): PassReceipt[] {
  const passes = 1 + (i % 7);
  const contentClass = at(["api-json", "summary", "=formula"], i % 3);
  return Array.from({ length: passes }, (_, k) => ({
    chain_id: `chain-${String(i).padStart(3, "0")}${i % 10 === 0 ? ',with "quotes"' : ""}`,
    pass_id: `p${k + 1}`,
    pass_number: k + 1,
    input_content_hash: null,
    current_content_hash: `h${i}.${k}`,
    // Every fourth chain shrinks under the default 256-byte floor at its last pass.
    current_size_bytes: i % 4 === 0 && k === passes - 1 && k > 0 ? 100 : 10_000 - k * 100 - i,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9 - (i % 13) / 100,
    content_class: contentClass === "=formula" ? "formula" : contentClass,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + k * 1_000).toISOString(),
    metadata: null,
    verdict: null,
    manifest_digest: null,
  }));
}

/** Where the default order puts a chain: 2 collapsed, 1 any other problem (an unanswered floor is one), 0 none. */
function urgency(c: ChainSummaryWire): number {
  if (c.statuses.includes("collapsed")) return 2;
  const saved = c.statuses.includes("guarded");
  const floor = (s: string) => s === "floor_breached" || s === "collapse_imminent";
  return c.statuses.some((s) => s !== "healthy" && s !== "guarded" && !(saved && floor(s))) ? 1 : 0;
}

function sortValue(c: ChainSummaryWire, sort: (typeof CHAIN_SORTS)[number]): string | number {
  // Urgency first, then last activity: one string that sorts the same way.
  if (sort === "attention") return `${urgency(c)} ${c.last_activity_at}`;
  if (sort === "last_activity") return c.last_activity_at;
  if (sort === "pass_count") return c.pass_count;
  if (sort === "min_density") return c.min_semantic_density ?? 2;
  if (sort === "min_measured_density") return c.min_measured_density ?? 2;
  return c.min_size_bytes ?? Number.MAX_SAFE_INTEGER;
}

async function readAll(sort: (typeof CHAIN_SORTS)[number], order: "asc" | "desc", limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: ChainKey | undefined;
  for (;;) {
    const page = await listChains({ sort, order, limit, after });
    ids.push(...page.items.map((c) => c.chain_id));
    if (!page.next) return ids;
    after = page.next;
  }
}

describe("chains list", () => {
  it("pages forward through every chain once, in order, for every sort", async () => {
    for (let i = 0; i < CHAINS; i += 40)
      await ingestPasses(Array.from({ length: Math.min(40, CHAINS - i) }, (_, j) => receiptsFor(i + j)).flat());
    const everything = (await listChains({ sort: "last_activity", order: "desc", limit: 500 })).items;
    expect(everything).toHaveLength(CHAINS);
    // Chains past the default floor's fourth pass went on past it (collapsed); those that shrink
    // under it at their last pass wait for their agent's word: the default order has three groups.
    expect(new Set(everything.map(urgency))).toEqual(new Set([0, 1, 2]));
    for (const sort of CHAIN_SORTS) {
      for (const order of ["asc", "desc"] as const) {
        const expected = [...everything]
          .sort((a, b) => {
            const [x, y] = [sortValue(a, sort), sortValue(b, sort)];
            const byKey = x < y ? -1 : x > y ? 1 : 0;
            const byId = a.chain_id < b.chain_id ? -1 : a.chain_id > b.chain_id ? 1 : 0;
            return (order === "asc" ? 1 : -1) * (byKey || byId);
          })
          .map((c) => c.chain_id);
        expect(await readAll(sort, order, 17), `${sort} ${order}`).toEqual(expected);
      }
    }
  });

  it("pages back from any page to the same pages, ending on a full first page", async () => {
    const sort = "pass_count";
    const order = defaultOrder(sort);
    const forward: ChainSummaryWire[][] = [];
    let after: ChainKey | undefined;
    for (;;) {
      const page = await listChains({ sort, order, limit: 20, after, withPrev: true });
      forward.push(page.items);
      expect(page.prev === null).toBe(after === undefined);
      if (!page.next) break;
      after = page.next;
    }
    let page = await listChains({ sort, order, limit: 20, after, withPrev: true });
    for (let i = forward.length - 2; i >= 0; i--) {
      page = await listChains({ sort, order, limit: 20, before: page.prev!, withPrev: true });
      expect(page.items.map((c) => c.chain_id)).toEqual(forward[i]?.map((c) => c.chain_id));
    }
    expect(page.prev).toBeNull();
  });

  it("filters on the server by status, class and id search", async () => {
    const collapsed = await listChains({
      sort: "last_activity",
      order: "desc",
      limit: 500,
      status: ["collapse_imminent"],
    });
    expect(collapsed.items.length).toBeGreaterThan(0);
    expect(collapsed.items.every((c) => c.statuses.includes("collapse_imminent") && c.collapse_point !== null)).toBe(
      true,
    );
    expect(await countChains({ status: ["collapse_imminent"] })).toEqual({
      count: collapsed.items.length,
      capped: false,
    });
    const healthy = await countChains({ status: ["healthy"] });
    expect((healthy?.count ?? 0) + collapsed.items.length).toBe(CHAINS);

    const summaries = await listChains({ sort: "last_activity", order: "desc", limit: 500, content_class: "summary" });
    expect(summaries.items.every((c) => c.content_class === "summary")).toBe(true);
    expect(summaries.items).toHaveLength(46);

    const search = await listChains({ sort: "last_activity", order: "desc", limit: 500, q: "chain-12" });
    expect(search.items.map((c) => c.chain_id).sort()).toEqual([
      'chain-120,with "quotes"',
      "chain-121",
      "chain-122",
      "chain-123",
      "chain-124",
      "chain-125",
      "chain-126",
      "chain-127",
      "chain-128",
      "chain-129",
    ]);
    // LIKE wildcards in the search are literal characters.
    expect(await countChains({ q: "chain_1" })).toEqual({ count: 0, capped: false });
    expect(await countChains({ q: "%" })).toBeNull();

    expect(await listChainClasses()).toEqual(["api-json", "formula", "summary"]);
  });
});

describe("chains export", () => {
  it("streams the filtered set as CSV, quoting what needs quoting", async () => {
    const response = await exportChains(
      jsonRequest("/api/v1/exports/chains?format=csv&status=collapse_imminent&sort=pass_count&order=asc"),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="floorline-chains-.*\.csv"$/);
    const text = await response.text();
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe(
      "chain_id,content_class,statuses,pass_count,boundary_count,last_pass_id,last_pass_number,last_verdict,collapse_pass_id,collapse_pass_number,collapse_verdict,client_mismatches,integrity_findings,min_semantic_density,min_size_bytes,first_seen_at,last_activity_at,measurement_mismatches,min_measured_density",
    );
    const expected = (await listChains({ sort: "pass_count", order: "asc", limit: 500, status: ["collapse_imminent"] }))
      .items;
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines.slice(1).map((l) => l.match(/^("(?:[^"]|"")*"|[^,]*)/)![1])).toEqual(
      expected.map((c) => (c.chain_id.includes(",") ? `"${c.chain_id.replace(/"/g, '""')}"` : c.chain_id)),
    );
    expect(text).toContain('"chain-040,with ""quotes"""');
  });

  it("streams the same set as a JSON array of the API's list items", async () => {
    const response = await exportChains(jsonRequest("/api/v1/exports/chains?format=json&content_class=summary"), {
      params: Promise.resolve({}),
    });
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const items = (await response.json()) as ChainSummaryWire[];
    const api = await listChainsApi(jsonRequest("/api/v1/chains?content_class=summary&limit=500"), {
      params: Promise.resolve({}),
    });
    expect(items).toEqual((await api.json()).items);
    expect(items).toHaveLength(46);

    const none = await exportChains(jsonRequest("/api/v1/exports/chains?format=json&q=nothing-like-this"), {
      params: Promise.resolve({}),
    });
    expect(await none.json()).toEqual([]);
  });

  it("reads the set in keyset pages of a fixed size, so memory does not grow with it", async () => {
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const page of iterateChains({ sort: "min_size", order: "asc" }, 10)) {
      pages.push(page.length);
      ids.push(...page.map((c) => c.chain_id));
    }
    expect(pages.length).toBe(Math.ceil(CHAINS / 10));
    expect(Math.max(...pages)).toBe(10);
    expect(ids).toEqual(await readAll("min_size", "asc", 500));
  });

  it("refuses bad filters with the contract's error body", async () => {
    const response = await exportChains(jsonRequest("/api/v1/exports/chains?format=xml"), {
      params: Promise.resolve({}),
    });
    expect(response.status).toBe(422);
    expect((await response.json()).error.code).toBe("invalid_query");
  });
});
