// A compression chain as the agent lives it: each pass guarded and recorded at once, and the
// seeds' decision boundary (proceed while safe; at a breach halt, restore or accept loss).
import { formatMarker, markerKey } from "../../../lib/originals/marker";
import { COLLAPSE_VERDICTS, type Verdict } from "../../../lib/guard/guard";
import { sha256Hex } from "../../../lib/guard/hash";
import { MAX_ORIGINALS, type Measurement } from "../../../lib/measure/index";
import type { MeasureFn } from "./measure";
import { buildReceipt, type PassReceipt, type Policy } from "./receipt";

export type Strategy = "halt" | "restore" | "accept_loss";

export interface PassResult {
  verdict: Verdict;
  directive: string;
  manifestDigest: string;
  receipt: PassReceipt;
  /** What the measurement found; its density is the receipt's unless the agent claimed one. */
  measured: Measured;
  /** The output to hand on: with cacheOriginals, the compressed output plus its CCR marker. */
  output: string;
}

export type Measured = Measurement;

export interface RecordOptions {
  /** A density claimed by the agent, used in place of the measured one. */
  density?: number;
  passId?: string;
  metadata?: Record<string, unknown>;
}

/** A compressor's result: the output, or the output with the density the agent claims for it. */
export type Compressed = string | { output: string; density?: number };

export interface BreachContext {
  pass: PassResult;
  policy: Policy;
  /** The last output the guard let through (the chain's content before the breaching pass). */
  previous: string;
}

export interface CompressOptions {
  /** Picks the strategy at a breach; by default FLOOR_BREACH restores and COLLAPSE_IMMINENT halts. */
  onBreach?: (breach: BreachContext) => Strategy | Promise<Strategy>;
  /** A safety stop for a policy whose max_pass_number is very large. */
  maxPasses?: number;
}

export interface CompressOutcome {
  /** The content to use from here on. */
  content: string;
  strategy: Strategy | null;
  /** Why compression stopped: the breaching pass's directive, or that the compressor stopped shrinking. */
  reason: string;
  passes: PassResult[];
  boundary: BoundaryReceipt | null;
}

export interface BoundaryReceipt {
  chain_id: string;
  pass_number: number;
  strategy: Strategy;
  reason: string;
  restore_pass_id?: string;
  relaxed_policy?: Record<string, unknown>;
}

/** What a chain needs from its client (kept narrow so chains are testable offline). */
export interface ChainHost {
  policyNow(contentClass: string): Policy;
  policyReady(contentClass: string): Promise<Policy>;
  measure: MeasureFn;
  cacheOriginals: boolean;
  sendContent: boolean;
  /** When a receipt is made (its created_at). */
  now(): Date;
  send(kind: "pass" | "boundary" | "original", body: Record<string, unknown>): void;
}

export interface ChainOptions {
  contentClass?: string;
  /**
   * The passes the chain already has, for an agent that resumes a chain after a restart: the
   * next recordPass is pass `resumeAfter + 1`. Its first input is hashed as it is, so a
   * resumed chain that does not start from its last output shows as a hash mismatch.
   */
  resumeAfter?: number;
  /**
   * What the chain started from (its first pass's input), to measure density against when
   * that is not the first input recorded here, as in a resumed chain.
   */
  source?: string;
}

export class Chain {
  readonly contentClass: string;
  private passNumber = 0;
  private source: string | null = null;
  private last: { passId: string; output: string; hash: string } | null = null;
  /** The inputs this chain cached, by the key its markers carry, for measuring what they make recoverable. */
  private readonly originals = new Map<string, string>();

  constructor(
    private readonly host: ChainHost,
    readonly id: string,
    options: ChainOptions = {},
  ) {
    this.contentClass = options.contentClass ?? "default";
    this.passNumber = options.resumeAfter ?? 0;
    this.source = options.source ?? null;
  }

  /** The policy the guard uses now: the server's once fetched, else the offline one. */
  get policy(): Policy {
    return this.host.policyNow(this.contentClass);
  }

  /** Resolves once the class's policy has been read from the server (or could not be). */
  ready(): Promise<Policy> {
    return this.host.policyReady(this.contentClass);
  }

  get passes(): number {
    return this.passNumber;
  }

  /** Guards and records one pass, without waiting on the network; the receipt is queued. */
  recordPass(input: string, output: string, options: RecordOptions = {}): PassResult {
    const policy = this.policy;
    const passNumber = ++this.passNumber;
    const passId = options.passId ?? `${this.id}.p${passNumber}`;
    this.source ??= input;
    // The usual chain hands each output on as the next input: its hash is already known.
    const inputHash = this.last && this.last.output === input ? this.last.hash : sha256Hex(input);
    let handed = output;
    if (this.host.cacheOriginals) {
      const key = markerKey(inputHash);
      // Base64 has no room for a marker: the original is cached, the output left as it is.
      handed = policy.format === "base64" ? output : withMarker(output, formatMarker(key));
      this.originals.set(key, input);
      // The measurement reads at most this many originals per content; older ones would only cost memory.
      if (this.originals.size > MAX_ORIGINALS) this.originals.delete(this.originals.keys().next().value as string);
      this.host.send("original", { original: input, compressed: output, chain_id: this.id, pass_id: passId });
    }
    const measured = this.host.measure(handed, { source: this.source, policy, originals: this.originals });
    const density = options.density ?? measured.semantic_density_score;
    const { receipt, manifest } = buildReceipt({
      chainId: this.id,
      contentClass: this.contentClass,
      passId,
      passNumber,
      inputHash,
      output: handed,
      density,
      parseable: measured.parseable,
      // No required fields: the content is as schema-valid as it is parseable.
      schemaValid: measured.schema_valid ?? measured.parseable,
      policy,
      metadata: options.metadata,
      sendContent: this.host.sendContent,
      source: this.source,
      createdAt: this.host.now(),
    });
    this.last = { passId, output: handed, hash: receipt.current_content_hash };
    this.host.send("pass", receipt as unknown as Record<string, unknown>);
    return {
      verdict: manifest.verdict,
      directive: manifest.directive,
      manifestDigest: manifest.manifest_digest,
      receipt,
      measured,
      output: handed,
    };
  }

  /** Records a compression-boundary receipt (what `compressUntilFloor` sends at a breach). */
  recordBoundary(boundary: Omit<BoundaryReceipt, "chain_id">): BoundaryReceipt {
    const receipt: BoundaryReceipt = { chain_id: this.id, ...boundary };
    this.host.send("boundary", receipt as unknown as Record<string, unknown>);
    return receipt;
  }

  /**
   * Compresses pass after pass while the guard says proceed. At a breach the strategy decides
   * the content: `halt` and `restore` keep the previous pass's output (restore also names that
   * pass, so the next pass must start from it), `accept_loss` keeps the breaching output with
   * the floor recorded as deliberately relaxed.
   */
  async compressUntilFloor(
    content: string,
    compress: (content: string, passNumber: number) => Compressed | Promise<Compressed>,
    options: CompressOptions = {},
  ): Promise<CompressOutcome> {
    const policy = await this.ready();
    const passes: PassResult[] = [];
    const limit = options.maxPasses ?? 100;
    let current = content;
    while (passes.length < limit) {
      const previousPassId = this.last?.passId ?? null;
      const made = await compress(current, this.passNumber + 1);
      const next = typeof made === "string" ? made : made.output;
      if (next === current) {
        return { content: current, strategy: null, reason: "the compressor made no progress", passes, boundary: null };
      }
      const pass = this.recordPass(current, next, typeof made === "string" ? {} : { density: made.density });
      passes.push(pass);
      if (!COLLAPSE_VERDICTS.has(pass.verdict)) {
        current = pass.output;
        continue;
      }
      const chosen =
        (await options.onBreach?.({ pass, policy, previous: current })) ??
        (pass.verdict === "FLOOR_BREACH_DETECTED" ? "restore" : "halt");
      // A restore names the pass it returns to; before any pass there is none to name.
      const strategy = chosen === "restore" && !previousPassId ? "halt" : chosen;
      const boundary = this.recordBoundary({
        pass_number: pass.receipt.pass_number,
        strategy,
        reason: pass.directive,
        ...(strategy === "restore" && previousPassId ? { restore_pass_id: previousPassId } : {}),
        ...(strategy === "accept_loss" ? { relaxed_policy: relaxed(policy) } : {}),
      });
      if (strategy === "restore" && previousPassId && this.last) {
        // The next pass starts from the restored output: keep its hash as the chain's last.
        this.last = { passId: previousPassId, output: current, hash: sha256Hex(current) };
      }
      return {
        content: strategy === "accept_loss" ? pass.output : current,
        strategy,
        reason: pass.directive,
        passes,
        boundary,
      };
    }
    return {
      content: current,
      strategy: null,
      reason: `stopped after ${limit} passes (maxPasses)`,
      passes,
      boundary: null,
    };
  }
}

/**
 * The output with its marker, still in its format: JSON stays JSON (a `_ccr` field on an
 * object, a last item in an array) so the marker never makes a pass unparseable; text gets
 * the marker on a line of its own.
 */
export function withMarker(output: string, marker: string): string {
  const start = output.trimStart()[0];
  if (start === "{" || start === "[") {
    try {
      const value: unknown = JSON.parse(output);
      if (Array.isArray(value)) return JSON.stringify([...value, marker]);
      if (value !== null && typeof value === "object") return JSON.stringify({ ...value, _ccr: marker });
    } catch {
      // not JSON after all: text
    }
  }
  return `${output}\n${marker}`;
}

function relaxed(policy: Policy): Record<string, unknown> {
  return {
    min_size_bytes: policy.min_size_bytes,
    min_semantic_density: policy.min_semantic_density,
    max_pass_number: policy.max_pass_number,
  };
}
