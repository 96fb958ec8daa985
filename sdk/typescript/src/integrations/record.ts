// What every framework integration does with a compaction it saw: a pass of the chain (the
// conversation), measured against what it replaced when both sides are readable, the replaced
// content cached as an original, queued through the client's delivery. Nothing here may throw
// into the agent or hold it up: the work runs after the agent's own call has its answer.
import { sha256Hex } from "../../../../lib/guard/hash";
import { measure } from "../../../../lib/measure/index";
import type { Chain } from "../chain";
import type { Floorline } from "../client";

export interface IntegrationOptions {
  chainId: string;
  contentClass?: string;
  /** The passes the chain already has (a conversation resumed in a new process). */
  resumeAfter?: number;
}

/** One compaction as a framework shows it. */
export interface Compaction {
  /** What the compaction replaced, as text; null when it is not at hand. */
  input: string | null;
  /** What replaced it, as text the agent holds from here on. */
  output: string;
  metadata?: Record<string, unknown>;
}

/** One compaction whose result cannot be read (encrypted, or applied where the client cannot see). */
export interface OpaqueCompaction {
  input: string | null;
  /** The result's bytes when the client holds them (e.g. encrypted items), for their hash and size. */
  output: string | null;
  /** The result's size when its bytes are not at hand. */
  estimatedSizeBytes?: number;
  metadata?: Record<string, unknown>;
}

let warned = 0;
/** At most a few lines per process: a broken integration must not flood the agent's log. */
export function warnOnce(what: string, error: unknown): void {
  if (warned++ >= 3) return;
  const why = error instanceof Error ? error.message : String(error);
  console.warn(`floorline: ${what}: ${why}`);
}

/** The chain, or null (warned) when the client refuses it, e.g. an id already open with another class. */
export function openChain(fl: Floorline, options: IntegrationOptions, defaultClass: string): Chain | null {
  try {
    return fl.chain(options.chainId, {
      contentClass: options.contentClass ?? defaultClass,
      ...(options.resumeAfter === undefined ? {} : { resumeAfter: options.resumeAfter }),
    });
  } catch (error) {
    warnOnce(`cannot open chain ${JSON.stringify(options.chainId)}`, error);
    return null;
  }
}

/** What the input was, for the receipt's metadata: it has no field for the input's size. */
function inputFacts(input: string | null): Record<string, unknown> {
  return input === null
    ? { input_readable: false }
    : { input_sha256: sha256Hex(input), input_size_bytes: Buffer.byteLength(input, "utf8") };
}

/**
 * Records a readable compaction now. The receipt names no input hash: a conversation grows
 * between compactions, so each one's input is never the previous one's output, and the server
 * would call every pass a hash mismatch. The input's digest and size go in the metadata, the
 * input itself to the originals store. The density is measured against this pass's input
 * (what the compaction threw away), not the chain's first input.
 */
export function recordCompactionNow(chain: Chain, c: Compaction): void {
  const policy = chain.policy;
  const density =
    c.input === null
      ? undefined
      : measure(c.output, {
          source: c.input,
          format: policy.format ?? "any",
          requiredFields: policy.required_fields ?? [],
        }).semantic_density_score;
  chain.recordPass(null, c.output, {
    ...(density === undefined ? {} : { density }),
    metadata: {
      ...c.metadata,
      ...inputFacts(c.input),
      density_measured: density !== undefined,
      ...(density === undefined ? {} : { density_against: "the pass's input" }),
    },
    ...(c.input === null ? {} : { original: c.input }),
  });
}

export function recordOpaqueNow(chain: Chain, c: OpaqueCompaction): void {
  const known = c.output !== null;
  chain.recordOpaquePass({
    sizeBytes: known
      ? Buffer.byteLength(c.output as string, "utf8")
      : Math.max(0, Math.round(c.estimatedSizeBytes ?? 0)),
    ...(known ? { hash: sha256Hex(c.output as string) } : {}),
    metadata: { ...c.metadata, ...inputFacts(c.input), ...(known ? {} : { size_estimated: true }) },
    ...(c.input === null ? {} : { original: c.input }),
  });
}

/**
 * Runs `work` after the agent's current call has returned (a macrotask later), in the order
 * asked, and never lets it throw: measuring a long conversation takes milliseconds that belong
 * after the agent has its answer.
 */
export function later(what: string, work: () => void): void {
  setImmediate(() => {
    try {
      work();
    } catch (error) {
      warnOnce(what, error);
    }
  });
}
