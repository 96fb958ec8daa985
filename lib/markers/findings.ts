// Marker integrity findings (docs/markers.md): a CCR marker that leads nowhere, or an original
// that came back compressed. Judged here from what the store says about each marker's original;
// db/queries/marker-findings.ts looks that up (by hash, through indexes) and records them.

/** The marker finding kinds, as the wire's IntegrityFinding and the metric's `kind` name them. */
export const MARKER_FINDING_KINDS = [
  "marker_unknown",
  "marker_expired",
  "marker_nested",
  "retrieve_recompressed",
  "marker_without_tool",
] as const;
export type MarkerFindingKind = (typeof MARKER_FINDING_KINDS)[number];

/** Markers read from one pass's content at most: the rest of a pass's markers are not judged. */
export const MAX_MARKERS_PER_PASS = 32;

/**
 * A chain is still active for an original that went (expired, evicted or deleted) when it
 * received a pass within this long before the original went.
 */
export const ACTIVE_CHAIN_WINDOW_MS = 24 * 3_600_000;

/**
 * The tool names that retrieve an original: Floorline's MCP tool (lib/mcp/tools.ts) and Headroom's
 * (lib/originals/headroom/shapes.ts CCR_TOOL_NAME; its proxy injects it, its MCP server serves it). A context's
 * tool counts under its own name or an MCP client's qualified one (`mcp__floorline__floorline_retrieve`).
 */
export const RETRIEVE_TOOL_NAMES = ["floorline_retrieve", "headroom_retrieve"] as const;

/** Whether a context offering `tools` can retrieve an original. */
export function offersRetrieve(tools: readonly string[]): boolean {
  return tools.some((tool) => {
    const name = tool.trim().toLowerCase();
    return RETRIEVE_TOOL_NAMES.some((r) => name === r || name.endsWith(`__${r}`) || name.endsWith(`.${r}`));
  });
}

/** What the store says of the original one marker names (default tenant, by key prefix). */
export type MarkerOriginal =
  | { state: "none" }
  | { state: "ambiguous" }
  /** Not stored yet, but the batch that carries the marker stores it (`cache_original`). */
  | { state: "held" }
  | { state: "live"; hash: string; nested: boolean }
  | { state: "gone"; hash: string; status: "evicted" | "expired"; gone_at: Date; reason: string | null };

/** One pass as its marker findings need it. */
interface MarkedPass {
  markers: readonly string[];
  /** The receipt's context_tools; null when it sent none (then no `marker_without_tool`). */
  context_tools: readonly string[] | null;
}

export interface MarkerJudgement {
  kind: MarkerFindingKind;
  hash: string;
  detail: string;
}

const short = (hash: string) => (hash.length > 16 ? `${hash.slice(0, 12)}…` : hash);

/** The findings of one pass's markers, given what the store says of each (`originalOf`). */
export function judgeMarkers(pass: MarkedPass, originalOf: (marker: string) => MarkerOriginal): MarkerJudgement[] {
  const out: MarkerJudgement[] = [];
  for (const marker of pass.markers) {
    const o = originalOf(marker);
    if (o.state === "none") {
      out.push({
        kind: "marker_unknown",
        hash: marker,
        detail: `The marker hash=${marker} names no original this store holds: never stored here, or another store's marker.`,
      });
    } else if (o.state === "gone") {
      out.push({
        kind: "marker_expired",
        hash: marker,
        detail: goneDetail(marker, o),
      });
    } else if (o.state === "live" && o.nested) {
      out.push({
        kind: "marker_nested",
        hash: marker,
        detail: `The original behind hash=${marker} (${short(o.hash)}) is itself compressed content whose marker leads nowhere: retrieving it gives back a marker this store cannot resolve, not the text.`,
      });
    }
  }
  if (pass.markers.length > 0 && pass.context_tools !== null && !offersRetrieve(pass.context_tools)) {
    const first = pass.markers[0] as string;
    const offered = pass.context_tools.length === 0 ? "no tools" : `${pass.context_tools.length} tools`;
    out.push({
      kind: "marker_without_tool",
      hash: first,
      detail: `This pass sent ${pass.markers.length} marker${pass.markers.length === 1 ? "" : "s"} (first hash=${first}) to a context that offered ${offered} and no retrieve tool (${RETRIEVE_TOOL_NAMES.join(" or ")}).`,
    });
  }
  return out;
}

export function goneDetail(
  marker: string,
  o: { hash: string; status: "evicted" | "expired"; gone_at: Date; reason: string | null },
): string {
  const why = o.reason ? `: ${o.reason}` : ".";
  return `The original behind hash=${marker} (${short(o.hash)}) was ${o.status} at ${o.gone_at.toISOString()} while the chain still pointed at it${why}`;
}

export function recompressedDetail(hash: string, retrievals: number): string {
  return `This pass compressed the text of original ${short(hash)}, which had been retrieved ${retrievals === 1 ? "once" : `${retrievals} times`}: a retrieve's answer compressed again.`;
}

/** The overview's figure of marker findings (db/queries/marker-findings.ts getMarkerFindingCounts). */
export interface MarkerFindingCounts {
  /** Findings found in the range, by kind (every kind, zero included). */
  by_kind: Record<MarkerFindingKind, number>;
  /** Chains with a finding found in the range. */
  chains: number;
  /**
   * Chains active in the range that have a marker finding: what `status=broken_markers` with the
   * same range lists (through chains_marker_finding_idx).
   */
  active_chains: number;
}
