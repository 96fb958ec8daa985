import { describe, expect, it } from "vitest";
import {
  decodeSegment,
  hrefWith,
  parseChainPageParams,
  parseChainsPageParams,
  parseOverviewParams,
  parsePoliciesParams,
} from "@/lib/schemas/search-params";

describe("dashboard URL state", () => {
  it("parses the chain page's pass, cursors and page size, dropping what does not parse", () => {
    expect(parseChainPageParams({ pass: "p5", after: "12.345", size: "100" })).toEqual({
      pass: "p5",
      after: [12, 345],
      size: 100,
    });
    expect(parseChainPageParams({ after: "nonsense", size: "7", from: "-1" })).toEqual({ size: 50 });
    expect(parseChainPageParams({ pass: ["first", "second"] })).toMatchObject({ pass: "first" });
  });

  it("parses the chains list like the API, falling back to defaults instead of failing", () => {
    expect(parseChainsPageParams({ status: "floor_breached", sort: "min_size", q: "demo" })).toMatchObject({
      status: "floor_breached",
      sort: "min_size",
      q: "demo",
      dir: "next",
      limit: 50,
    });
    expect(parseChainsPageParams({ status: "on-fire", sort: "random", limit: "9999" })).toMatchObject({
      status: undefined,
      sort: "last_activity",
      limit: 50,
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
});

describe("decodeSegment", () => {
  it("reads a page's percent-encoded segment as the id it encodes", () => {
    expect(decodeSegment(encodeURIComponent("weird id/ü?#%"))).toBe("weird id/ü?#%");
    expect(decodeSegment("plain")).toBe("plain");
    expect(decodeSegment("100%")).toBe("100%");
  });
});
