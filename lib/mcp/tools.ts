// The MCP tools Floorline serves (docs/mcp.md): their names, the descriptions a model
// chooses them by, their input shapes, and the scope each call needs. Pure: the route
// (app/mcp/route.ts) checks the scopes before the MCP transport sees the call, and the tools
// (app/mcp/tools.ts) run the mirrored routes' own queries.
//
// Input shapes are plain strings with lengths: they become the JSON Schema a client shows its
// model. The values are then parsed by the mirrored route's own schema (a hash key, a content
// class, the measure limits), so a tool takes exactly what its route takes.
import { z } from "zod";
import type { KeyScope } from "../auth/credentials";

export const TOOL_NAMES = [
  "floorline_retrieve",
  "floorline_check",
  "floorline_constraints",
  "floorline_chain",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

const id = (what: string) => z.string().min(1).max(256).describe(what);

export const TOOLS = {
  floorline_retrieve: {
    title: "Retrieve a compressed original",
    description: [
      "Fetch the full original text that a compression marker in your context stands for.",
      "Use it when you see a marker such as `[40 items compressed to 8. Retrieve more: hash=3f2a9c1b7d4e]` or",
      "`<<ccr:3f2a9c1b7d4e>>` and you need what it replaced: exact numbers, ids, error lines, the items left out.",
      "Pass the hash from the marker (12 to 64 hex characters). Returns the original text.",
      "A hash that was never stored, names several originals, or whose original was evicted or expired",
      "is an error, and retrying will not help. Nothing else changes; the retrieval is counted.",
    ].join(" "),
    input: {
      hash: z.string().min(1).max(128).describe("The hash from the marker: the full SHA-256 or a prefix of 12+ hex."),
      tenant: z
        .string()
        .max(128)
        .optional()
        .describe("Only when the marker came from a tenant's cache (e.g. `headroom`); omit otherwise."),
    },
  },
  floorline_check: {
    title: "Check a compression before using it",
    description: [
      "Before you replace context with a compressed version of it (a summary, a trimmed tool result, a",
      "compacted history), check that the compressed version is still safe to work from.",
      "Give the candidate as `content`, and either the `source` it was compressed from or the `chain_id` of the",
      "compression chain it would continue (the chain's recorded source, floor policy and next pass number are",
      "used). Floorline measures the candidate's semantic density, lists specific facts of the source it lost",
      "(numbers, ids, names, error lines), and runs the collapse guard on what it measured.",
      "verdict SAFE_TO_COMPRESS or NO_RECURSIVE_COMPRESSION: usable. FLOOR_BREACH_DETECTED or",
      "COLLAPSE_IMMINENT: do not use it; follow `directive` (keep the previous version, or restore the facts in",
      "`lost_examples`). Nothing is stored.",
    ].join(" "),
    input: {
      content: z.string().describe("The compressed candidate, as you would use it (at most 4 MiB)."),
      source: z
        .string()
        .optional()
        .describe("What it was compressed from: the chain's original input (at most 4 MiB)."),
      chain_id: id("The compression chain this candidate would be the next pass of.").optional(),
      content_class: z
        .string()
        .max(64)
        .optional()
        .describe("Whose floor policy applies (e.g. `summary`); default the chain's class, else `default`."),
    },
  },
  floorline_constraints: {
    title: "What a predecessor established",
    description: [
      "Before you continue work that another agent (or an earlier context of yours) started, read what it",
      "established and ruled out. Give a `trace_id` of a distilled reasoning trace (the one you continue: its",
      "ancestors, named by `parent_trace_id`, are read too), or a `chain_id` for every trace recorded for that",
      "chain. Returns the binding axioms (verified conclusions to treat as true, each",
      "with the receipt that proved it: a test result, an exit code), the invalidations (paths ruled out, with",
      "the evidence), and the superseded hypotheses (approaches not to retry), plus any axiom a later trace",
      "contradicted. Read it before acting, so you neither redo settled work nor retry a dead end.",
    ].join(" "),
    input: {
      trace_id: id("A distilled trace's id.").optional(),
      chain_id: id("A chain whose traces to read, oldest first.").optional(),
    },
  },
  floorline_chain: {
    title: "A compression chain's health",
    description: [
      "Look up a compression chain: its status (healthy, guarded, collapsed, collapse_imminent,",
      "floor_breached, ...), its collapse point (the first pass whose verdict said stop), the boundaries the",
      "agent recorded (halt, restore, accept_loss), its integrity findings (hash mismatches, missing or",
      "repeated passes, passes after a halt) and its last passes. Use it to decide whether compressed",
      "context from that chain can be trusted, or which pass to restore from.",
    ].join(" "),
    input: { chain_id: id("The chain's id, as its receipts name it.") },
  },
} as const satisfies Record<ToolName, { title: string; description: string; input: z.ZodRawShape }>;

/**
 * The scopes a call needs, as the routes it mirrors: retrieve is POST /api/v1/retrieve (`read`);
 * check guards as POST /api/v1/evaluate does (`ingest`) and, naming a chain, reads it as GET
 * /api/v1/chains/{chain_id} does (`read` too); constraints and chain are GETs of traces and
 * chains (`read`).
 */
export function scopesOfCall(name: ToolName, args: unknown): KeyScope[] {
  switch (name) {
    case "floorline_check": {
      const chainId =
        typeof args === "object" && args !== null ? (args as Record<string, unknown>).chain_id : undefined;
      return chainId === undefined || chainId === null ? ["ingest"] : ["ingest", "read"];
    }
    default:
      return ["read"];
  }
}

/** The scope without which a tool cannot be called at all: tools/list shows a caller only those it has. */
export function baseScopeOf(name: ToolName): KeyScope {
  return name === "floorline_check" ? "ingest" : "read";
}

export function isToolName(name: unknown): name is ToolName {
  return typeof name === "string" && (TOOL_NAMES as readonly string[]).includes(name);
}
