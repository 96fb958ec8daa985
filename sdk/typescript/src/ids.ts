// What the SDKs name and mark the same way, byte for byte, so that one piece of work recorded
// from TypeScript or from Python makes the same receipts (sdk/python/src/floorline/ids.py).
import { sha256Hex } from "../../../lib/guard/hash";
import { type PyJson, pyJsonDumps } from "../../../lib/guard/python";
import type { ReasoningNode } from "../../../lib/traces/trace";

const MAX_ID = 256;

/**
 * `<chain id>.p<n>`: unique across chains, so a pass is findable by its id alone. A chain id
 * too long to leave room for the suffix is replaced by the first 24 hex of its SHA-256.
 */
export function passIdFor(chainId: string, passNumber: number): string {
  const id = `${chainId}.p${passNumber}`;
  return id.length <= MAX_ID ? id : `${sha256Hex(chainId).slice(0, 24)}.p${passNumber}`;
}

/** A node as the wire carries it: its four fields and nothing else. */
export function wireNode(node: ReasoningNode): ReasoningNode {
  return {
    node_id: node.node_id,
    node_type: node.node_type,
    content: node.content,
    verification_receipt: node.verification_receipt ?? null,
  };
}

/**
 * A trace named by its nodes: the same nodes are the same trace (a resend or a rerun is a
 * repeat, not a second trace). Hashed as Python's `json.dumps(nodes, sort_keys=True)` writes
 * them, so the order of a node's fields does not matter and both SDKs agree.
 */
export function traceIdFor(nodes: readonly ReasoningNode[]): string {
  return `trace-${sha256Hex(pyJsonDumps(nodes.map(wireNode) as unknown as PyJson)).slice(0, 24)}`;
}

// JSON's own whitespace: what JSON.parse skips around a value.
const isJsonSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r";

/**
 * The output with its CCR marker, still in its format: JSON stays JSON (a `_ccr` field of an
 * object, a last item of an array), written into the text as it is so the compressor's bytes
 * are kept; anything else gets the marker on a line of its own.
 */
export function withMarker(output: string, marker: string): string {
  let start = 0;
  while (isJsonSpace(output[start])) start++;
  const open = output[start];
  if (open === "{" || open === "[") {
    let value: unknown;
    try {
      value = JSON.parse(output);
    } catch {
      value = undefined;
    }
    if (typeof value === "object" && value !== null) {
      let end = output.length - 1;
      while (isJsonSpace(output[end])) end--;
      const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
      // The marker's characters need no escaping in a JSON string.
      const item = Array.isArray(value) ? `"${marker}"` : `"_ccr":"${marker}"`;
      return `${output.slice(0, end)}${empty ? "" : ","}${item}${output.slice(end)}`;
    }
  }
  return `${output}\n${marker}`;
}
