import { encodeCursor } from "@/lib/http/cursor";
import { describe, expect, it } from "vitest";
import { overviewParamsSchema } from "@/app/search-params";
import { chainPageParamsSchema, chainsPageParamsSchema } from "@/app/chains/search-params";
import { parsePoliciesParams } from "@/app/policies/search-params";
import { chainHref, hrefWith } from "@/lib/routes";
import { originalsPageParamsSchema } from "@/app/originals/search-params";
import { tracesPageParamsSchema } from "@/app/traces/search-params";
import { decodeSegment, parseSearchParams, parseSearchParamsWithNotices, type RawSearchParams } from "@/lib/url-state";

// Each page family's schema through the one parser, as the pages call it.
const parseChainPageParams = (raw: RawSearchParams) => parseSearchParams(chainPageParamsSchema, raw);
const parseChainsPageParams = (raw: RawSearchParams) => parseSearchParams(chainsPageParamsSchema, raw);
const parseOverviewParams = (raw: RawSearchParams) => parseSearchParams(overviewParamsSchema, raw);

describe("dashboard URL state", () => {
  it("parses the chain page's pass, cursors and page size, dropping what does not parse", () => {
    expect(parseChainPageParams({ pass: "p5", after: encodeCursor([12, 345]), size: "100" })).toEqual({
      pass: "p5",
      after: [12, 345],
      size: 100,
    });
    expect(parseChainPageParams({ after: "12.345", size: "7", from: "-1" })).toEqual({ size: 50 });
    expect(parseChainPageParams({ pass: ["first", "second"] })).toMatchObject({ pass: "first" });
  });

  it("parses the chains list like the API, falling back to defaults instead of failing", () => {
    expect(parseChainsPageParams({ status: "floor_breached", sort: "min_size", q: "demo" })).toMatchObject({
      status: ["floor_breached"],
      sort: "min_size",
      q: "demo",
      dir: "next",
      limit: 50,
    });
    // The default order puts the chains that need attention first.
    expect(parseChainsPageParams({ status: "on-fire", sort: "random", limit: "9999" })).toMatchObject({
      status: undefined,
      sort: "attention",
      limit: 50,
    });
    expect(parseChainsPageParams({ status: "guarded,collapsed" })).toMatchObject({
      status: ["guarded", "collapsed"],
      sort: "attention",
    });
  });

  it("parses the overview's range", () => {
    expect(parseOverviewParams({ range: "30d" })).toEqual({ range: "30d" });
    expect(parseOverviewParams({ range: "forever" })).toEqual({ range: "7d" });
  });

  it("runs a what-if only with a whole, valid candidate", () => {
    expect(parsePoliciesParams({ class: "summary" })).toEqual({
      class: "summary",
      candidate: null,
      candidateError: null,
    });
    expect(
      parsePoliciesParams({
        class: "summary",
        min_size_bytes: "400",
        min_semantic_density: "0.6",
        max_pass_number: "8",
      }),
    ).toMatchObject({
      candidate: { min_size_bytes: 400, min_semantic_density: 0.6, max_pass_number: 8 },
      candidateError: null,
    });
    expect(parsePoliciesParams({ class: "summary", min_size_bytes: "400" }).candidateError).toMatch(/all three/);
    const bad = parsePoliciesParams({
      class: "summary",
      min_size_bytes: "400",
      min_semantic_density: "1.5",
      max_pass_number: "8",
    });
    expect(bad.candidate).toBeNull();
    expect(bad.candidateError).toMatch(/^min_semantic_density/);
    expect(bad.class).toBe("summary");
  });

  it("builds links without empty parameters", () => {
    expect(hrefWith("/chains", { status: "healthy", q: "", sort: undefined, limit: 25 })).toBe(
      "/chains?status=healthy&limit=25",
    );
    expect(hrefWith("/chains", {})).toBe("/chains");
  });

  it("escapes ids in chain links, so a free-text id opens its own page", () => {
    expect(chainHref("a b/c?d#e")).toBe("/chains/a%20b%2Fc%3Fd%23e");
    expect(chainHref("run-42", { pass: "run-42.p3", from: 3 })).toBe("/chains/run-42?pass=run-42.p3&from=3");
    expect(decodeSegment(chainHref("weird id/ü?#%").slice("/chains/".length))).toBe("weird id/ü?#%");
  });
});

describe("decodeSegment", () => {
  it("reads a page's percent-encoded segment as the id it encodes", () => {
    expect(decodeSegment(encodeURIComponent("weird id/ü?#%"))).toBe("weird id/ü?#%");
    expect(decodeSegment("plain")).toBe("plain");
    expect(decodeSegment("100%")).toBe("100%");
  });
});

describe("URL values a page cannot use are named, never dropped silently", () => {
  const ignoredKeys = <S extends Parameters<typeof parseSearchParamsWithNotices>[0]>(
    schema: S,
    raw: RawSearchParams,
    options?: Parameters<typeof parseSearchParamsWithNotices>[2],
  ) => parseSearchParamsWithNotices(schema, raw, options).ignored.map((i) => `${i.key}=${i.value}`);

  it("chains: unknown statuses, ranges and page sizes; several statuses are kept", () => {
    expect(ignoredKeys(chainsPageParamsSchema, { status: "collapsedd", range: "2w", limit: "7" })).toEqual([
      "status=collapsedd",
      "range=2w",
      "limit=7",
    ]);
    const { params, ignored } = parseSearchParamsWithNotices(
      chainsPageParamsSchema,
      { status: ["collapsed", "client_mismatch"], range: "7d" },
      { repeatable: ["status"] },
    );
    expect(ignored).toEqual([]);
    expect(params.status).toEqual(["collapsed", "client_mismatch"]);
    expect(ignoredKeys(chainsPageParamsSchema, { status: "collapsed,nope" })).toEqual(["status=collapsed,nope"]);
    // The known part of such a list still filters.
    expect(parseSearchParamsWithNotices(chainsPageParamsSchema, { status: "collapsed,nope" }).params.status).toEqual([
      "collapsed",
    ]);
    expect(parseSearchParamsWithNotices(chainsPageParamsSchema, { status: "nope" }).params.status).toBeUndefined();
    expect(ignoredKeys(chainsPageParamsSchema, { cursor: "garbage" }, { quiet: ["cursor"] })).toEqual([]);
  });

  it("originals and traces: unknown status, sort, order, limit and mismatch values", () => {
    expect(
      ignoredKeys(originalsPageParamsSchema, { status: "alive", sort: "size!", order: "up", limit: "9999", q: "ok" }),
    ).toEqual(["status=alive", "sort=size!", "order=up", "limit=9999"]);
    expect(ignoredKeys(originalsPageParamsSchema, { status: "live", sort: "size", limit: "25" })).toEqual([]);
    expect(ignoredKeys(tracesPageParamsSchema, { mismatch: "maybe", q: "x" })).toEqual(["mismatch=maybe"]);
    expect(parseSearchParamsWithNotices(tracesPageParamsSchema, { mismatch: "false" }).params.mismatch).toBe(false);
  });

  it("only strings are read: a query that swaps the object's prototype brings no functions along", () => {
    // What Next.js hands a page for `?__proto__=a&__proto__=b&sort=x`: the second `__proto__`
    // makes an array the prototype, so collecting `sort` finds `Array.prototype.sort` first.
    const raw: RawSearchParams = {};
    const set = (key: string, value: string) => {
      const bag = raw as Record<string, unknown>;
      const existing = bag[key];
      bag[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    };
    set("__proto__", "a");
    set("__proto__", "b");
    set("sort", "x");
    expect(typeof (raw.sort as unknown[])[0]).toBe("function");
    const { params, ignored } = parseSearchParamsWithNotices(chainsPageParamsSchema, raw);
    expect(ignored).toEqual([expect.objectContaining({ key: "sort", value: "x" })]);
    expect(params.sort).toBe("attention");
  });

  it("a value with a NUL is named and left out: no stored text can match it", () => {
    const { params, ignored } = parseSearchParamsWithNotices(chainsPageParamsSchema, {
      q: "a\u0000b",
      sort: "pass_count",
    });
    expect(params.q).toBeUndefined();
    expect(params.sort).toBe("pass_count");
    expect(ignored).toEqual([{ key: "q", value: "a\u2400b", message: expect.stringContaining("NUL") }]);
    expect(parseSearchParams(originalsPageParamsSchema, { chain_id: "\u0000" }).chain_id).toBeUndefined();
  });
});
