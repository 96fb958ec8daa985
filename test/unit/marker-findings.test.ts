// The marker findings' judging (lib/markers/findings.ts): what the store says of each marker's
// original makes which finding, which tool names retrieve, and the webhook's words with the hash.
import { describe, expect, it } from "vitest";
import { judgeMarkers, type MarkerOriginal, offersRetrieve, RETRIEVE_TOOL_NAMES } from "@/lib/markers/findings";
import { CCR_TOOL_NAME } from "@/lib/originals/headroom/shapes";
import { renderBody } from "@/lib/webhooks/payload";

const H = "0123456789abcdef01234567";
const FULL = `${H}${"0".repeat(40)}`;
const states: Record<string, MarkerOriginal> = {
  none: { state: "none" },
  ambiguous: { state: "ambiguous" },
  held: { state: "held" },
  live: { state: "live", hash: FULL, nested: false },
  nested: { state: "live", hash: FULL, nested: true },
  gone: { state: "gone", hash: FULL, status: "evicted", gone_at: new Date("2026-12-01T00:00:00Z"), reason: null },
};
const judge = (state: keyof typeof states, tools: string[] | null = null) =>
  judgeMarkers({ markers: [H], context_tools: tools }, () => states[state] as MarkerOriginal).map((f) => f.kind);

describe("judgeMarkers", () => {
  it("makes one finding per marker by what the store holds", () => {
    expect(judge("none")).toEqual(["marker_unknown"]);
    expect(judge("gone")).toEqual(["marker_expired"]);
    expect(judge("nested")).toEqual(["marker_nested"]);
    // A marker that names a live plain original, or one the batch stores, or several: nothing to say.
    expect(judge("live")).toEqual([]);
    expect(judge("held")).toEqual([]);
    expect(judge("ambiguous")).toEqual([]);
  });

  it("finds markers sent without a retrieve tool only where the receipt listed the tools", () => {
    expect(judge("live", ["read_file"])).toEqual(["marker_without_tool"]);
    expect(judge("live", [])).toEqual(["marker_without_tool"]);
    expect(judge("live", null)).toEqual([]);
    expect(judge("live", ["read_file", "floorline_retrieve"])).toEqual([]);
    expect(judgeMarkers({ markers: [], context_tools: ["read_file"] }, () => states.none as MarkerOriginal)).toEqual(
      [],
    );
  });

  it("words an expiry with when, and why when known", () => {
    const [gone] = judgeMarkers({ markers: [H], context_tools: null }, () => ({
      state: "gone",
      hash: FULL,
      status: "expired",
      gone_at: new Date("2026-12-01T00:00:00Z"),
      reason: "Expired: its TTL of 60 s ran out.",
    }));
    expect(gone?.detail).toBe(
      `The original behind hash=${H} (${FULL.slice(0, 12)}…) was expired at 2026-12-01T00:00:00.000Z while the chain still pointed at it: Expired: its TTL of 60 s ran out.`,
    );
  });
});

describe("retrieve tools", () => {
  it("are Floorline's and Headroom's, under their names or an MCP client's qualified ones", () => {
    expect(RETRIEVE_TOOL_NAMES).toContain(CCR_TOOL_NAME);
    for (const name of [
      "floorline_retrieve",
      "headroom_retrieve",
      "HEADROOM_RETRIEVE",
      "mcp__floorline__floorline_retrieve",
      "mcp__headroom__headroom_retrieve",
      "headroom.headroom_retrieve",
    ])
      expect(offersRetrieve([name]), name).toBe(true);
    for (const name of ["retrieve", "floorline_retrieve_all", "my_headroom_retrieve", "read_file"])
      expect(offersRetrieve([name]), name).toBe(false);
  });
});

describe("the webhook of a marker finding", () => {
  it("carries the hash in JSON and names it in Slack", () => {
    const event = {
      id: "ev_1",
      created_at: "2026-12-01T00:00:00.000Z",
      url: "https://floorline.example/chains/c",
      type: "chain.integrity_finding" as const,
      data: {
        chain_id: "c",
        content_class: "default",
        pass_id: "c.p1",
        pass_number: 1,
        kind: "marker_unknown",
        hash: H,
        detail: "d",
      },
    };
    expect(JSON.parse(renderBody(event, "json")).data.hash).toBe(H);
    expect(JSON.parse(renderBody(event, "slack")).text).toContain(`marker \`${H}\``);
  });
});
