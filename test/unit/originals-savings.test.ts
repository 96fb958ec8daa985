import { describe, expect, it } from "vitest";
import { entryTokens, estimateTokens, summariseSavings } from "@/lib/originals/savings";

describe("entryTokens", () => {
  it("uses the client's counts when given: saving is original minus compressed, a retrieval costs the original", () => {
    expect(
      entryTokens({ originalBytes: 1, compressedBytes: 1, originalTokens: 40_000, compressedTokens: 800 }),
    ).toEqual({
      tokensSaved: 39_200,
      retrievalTokens: 40_000,
      estimated: false,
    });
  });

  it("estimates from UTF-8 bytes at 4 per token when counts are missing, and says so", () => {
    expect(estimateTokens(4001)).toBe(1001);
    expect(entryTokens({ originalBytes: 4000, compressedBytes: 400 })).toEqual({
      tokensSaved: 900,
      retrievalTokens: 1000,
      estimated: true,
    });
    expect(entryTokens({ originalBytes: 4000, compressedBytes: 400, originalTokens: 2000 })).toEqual({
      tokensSaved: 1900,
      retrievalTokens: 2000,
      estimated: true,
    });
  });

  it("claims no saving when the compressed side is unknown, but still prices a retrieval", () => {
    expect(entryTokens({ originalBytes: 4000, compressedBytes: null })).toEqual({
      tokensSaved: null,
      retrievalTokens: 1000,
      estimated: true,
    });
  });

  it("keeps a negative saving when the 'compressed' text is larger", () => {
    expect(
      entryTokens({ originalBytes: 0, compressedBytes: 0, originalTokens: 10, compressedTokens: 25 }).tokensSaved,
    ).toBe(-15);
  });
});

describe("summariseSavings", () => {
  it("nets retrievals against the gross saving", () => {
    expect(summariseSavings(39_200, 80_000)).toEqual({
      gross: 39_200,
      respent: 80_000,
      net: -40_800,
      respentShare: 80_000 / 39_200,
    });
    expect(summariseSavings(0, 0)).toEqual({ gross: 0, respent: 0, net: 0, respentShare: null });
  });
});
