// A compression chain as the agent lives it: each pass guarded and recorded at once, and the
// seeds' decision boundary (proceed while safe; at a breach halt, restore or accept loss).
// Longer than most modules on purpose: Chain is the one object an agent holds, and its methods
// share the pass counter, the last output, the policy and the canaries; what they take and
// give is in results.ts.
import {
  type Canary,
  type CanaryCheck,
  checkCanaries,
  MAX_CANARIES,
  plantCanaries,
} from "../../../lib/canaries/canaries";
import { formatMarker, markerKey } from "../../../lib/originals/marker";
import { COLLAPSE_VERDICTS } from "../../../lib/guard/guard";
import { sha256Hex } from "../../../lib/guard/hash";
import { MAX_ORIGINALS } from "../../../lib/measure/index";
import {
  kindOf,
  optionalCount,
  optionalDensity,
  optionalObject,
  requireFunction,
  requireId,
  requireString,
  requireStrategy,
} from "./args";
import { passIdFor, withMarker } from "./ids";
import type { MeasureFn } from "./measure";
import { buildReceipt, type Policy } from "./receipt";
import {
  type BoundaryReceipt,
  type Compressed,
  type CompressOptions,
  type CompressOutcome,
  defaultStrategy,
  type OpaquePassOptions,
  type PassResult,
  type PlantOptions,
  type RecordOptions,
} from "./results";

/** What a chain needs from its client (kept narrow so chains are testable offline). */
export interface ChainHost {
  policyNow(contentClass: string): Policy;
  policyReady(contentClass: string): Promise<Policy>;
  /** Turns a policy given for one chain into the client's Policy (with the class's name). */
  givenPolicy(contentClass: string, policy: Policy): Policy;
  measure: MeasureFn;
  cacheOriginals: boolean;
  sendContent: boolean;
  /** When a receipt is made (its created_at). */
  now(): Date;
  send(kind: "pass" | "boundary" | "original", body: Record<string, unknown>): void;
}

export interface ChainOptions {
  contentClass?: string;
  /** This chain's floor, winning over the client's `policies` and the server's. */
  policy?: Policy;
  /** Sent with every pass of the chain, under each pass's own metadata. */
  metadata?: Record<string, unknown>;
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
  private readonly given: Policy | null;
  private readonly metadata: Record<string, unknown> | undefined;
  private readonly planted: Canary[] = [];
  /** Planted since the last receipt: the next receipt carries them. */
  private unsent: Canary[] = [];

  constructor(
    private readonly host: ChainHost,
    readonly id: string,
    options: ChainOptions = {},
  ) {
    this.contentClass = options.contentClass ?? "default";
    this.passNumber = optionalCount("chain", "resumeAfter", options.resumeAfter) ?? 0;
    this.source = options.source === undefined ? null : requireString("chain", "source", options.source);
    const policy = optionalObject("chain", "policy", options.policy) as Policy | undefined;
    this.given = policy ? host.givenPolicy(this.contentClass, policy) : null;
    this.metadata = optionalObject("chain", "metadata", options.metadata);
  }

  /** Whether this chain judges by a policy of its own (then the server's is not read for it). */
  get hasOwnPolicy(): boolean {
    return this.given !== null;
  }

  /** The policy the guard uses now: given in code (for the chain or its class), else the server's, else the default. */
  get policy(): Policy {
    return this.given ?? this.host.policyNow(this.contentClass);
  }

  /** Resolves once the class's policy has been read from the server (or could not be, or policyWaitMs passed). */
  async ready(): Promise<Policy> {
    return this.given ?? this.host.policyReady(this.contentClass);
  }

  get passes(): number {
    return this.passNumber;
  }

  /** The canaries planted in this chain, in planting order. */
  get canaries(): readonly Canary[] {
    return this.planted;
  }

  /**
   * The content with synthetic facts written into it as its format carries facts (a JSON member,
   * a log line shaped like its neighbours, a sentence): compress the returned content. The next
   * receipt records them; every pass from then on reports which survive (docs/canaries.md).
   */
  plantCanaries(content: string, options: PlantOptions = {}): string {
    requireString("plantCanaries", "content", content);
    optionalObject("plantCanaries", "options", options);
    const count = optionalCount("plantCanaries", "count", options.count) ?? 4;
    const seed = options.seed === undefined ? this.id : requireString("plantCanaries", "seed", options.seed);
    // A sentence in base64 would corrupt it; the decoded text is where facts go.
    if (this.policy.format === "base64")
      throw new RangeError(
        "plantCanaries: this class's content is base64; plant into the decoded text and encode it again",
      );
    if (this.planted.length + count > MAX_CANARIES)
      throw new RangeError(
        `plantCanaries: a chain carries at most ${MAX_CANARIES} canaries; ${this.planted.length} are planted, ${count} more asked`,
      );
    const planted = plantCanaries(content, { count, seed, start: this.planted.length, format: options.format });
    this.planted.push(...planted.canaries);
    this.unsent.push(...planted.canaries);
    return planted.content;
  }

  /** Which of this chain's planted canaries survive in `text`: present verbatim (their `text`). */
  checkCanaries(text: string): CanaryCheck {
    requireString("checkCanaries", "text", text);
    return checkCanaries(text, this.planted);
  }

  /** The canaries and the check a receipt carries: none before any is planted. */
  private canaryFields(output: string | null, given: CanaryCheck | undefined): CanaryFields {
    if (this.planted.length === 0 && given === undefined) return { check: null };
    const check = given ?? (output === null ? null : checkCanaries(output, this.planted));
    const canaries = this.unsent;
    this.unsent = [];
    return { canaries: canaries.length > 0 ? canaries : undefined, check };
  }

  /**
   * Guards and records one pass, without waiting on the network; the receipt is queued. `input`
   * may be null when the compressor's input is not at hand: the receipt then names no input hash.
   */
  recordPass(input: string | null, output: string, options: RecordOptions = {}): PassResult {
    if (input !== null && typeof input !== "string")
      throw new TypeError(`recordPass: input must be a string or null, not ${kindOf(input)}`);
    requireString("recordPass", "output", output);
    optionalObject("recordPass", "options", options);
    const claimed = optionalDensity("recordPass", "density", options.density);
    const given = optionalObject("recordPass", "metadata", options.metadata);
    const originalItems = optionalCount("recordPass", "originalItems", options.originalItems);
    const compressedItems = optionalCount("recordPass", "compressedItems", options.compressedItems);
    const original =
      options.original === undefined ? undefined : requireString("recordPass", "original", options.original);
    const givenCheck = optionalCanaryCheck("recordPass", options.canaryCheck);
    const contextTools = optionalToolNames("recordPass", options.contextTools);
    const policy = this.policy;
    const passNumber = ++this.passNumber;
    const passId =
      options.passId === undefined ? passIdFor(this.id, passNumber) : requireId("recordPass", "passId", options.passId);
    if (input !== null) this.source ??= input;
    // The usual chain hands each output on as the next input: its hash is already known.
    const inputHash =
      input === null ? undefined : this.last && this.last.output === input ? this.last.hash : sha256Hex(input);
    let handed = output;
    let originalKey: string | null = null;
    if (this.host.cacheOriginals && input !== null && inputHash !== undefined) {
      originalKey = markerKey(inputHash);
      // Base64 has no room for a marker: the original is cached, the output left as it is.
      if (policy.format !== "base64")
        handed = withMarker(output, formatMarker(originalKey, originalItems, compressedItems));
      this.originals.set(originalKey, input);
      // The measurement reads at most this many originals per content; older ones would only cost memory.
      if (this.originals.size > MAX_ORIGINALS) this.originals.delete(this.originals.keys().next().value as string);
      this.host.send("original", {
        original: input,
        compressed: output,
        hash: originalKey,
        chain_id: this.id,
        pass_id: passId,
        ...(originalItems !== undefined && compressedItems !== undefined
          ? { original_items: originalItems, compressed_items: compressedItems }
          : {}),
      });
    }
    if (original !== undefined) this.sendOriginal(original, output, passId);
    const measured = this.host.measure(handed, { source: this.source, policy, originals: this.originals });
    const metadata = this.metadata || given ? { ...this.metadata, ...given } : undefined;
    const canaries = this.canaryFields(handed, givenCheck);
    const { receipt, manifest } = buildReceipt({
      chainId: this.id,
      contentClass: this.contentClass,
      passId,
      passNumber,
      inputHash,
      output: handed,
      density: claimed ?? measured.semantic_density_score,
      parseable: measured.parseable,
      // No required fields: the content is as schema-valid as it is parseable.
      schemaValid: measured.schema_valid ?? measured.parseable,
      policy,
      metadata,
      sendContent: this.host.sendContent,
      source: this.source ?? undefined,
      canaries: canaries.canaries,
      canaryCheck: canaries.check ?? undefined,
      contextTools,
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
      originalKey,
      canaryCheck: canaries.check,
    };
  }

  /**
   * Records a pass whose output cannot be read: its size (and hash when its bytes are known),
   * parseable, and a density of 1 that is no measurement (the metadata says so), so the guard
   * judges it on size and pass count alone. Queued as recordPass's receipts are.
   */
  recordOpaquePass(options: OpaquePassOptions): PassResult {
    optionalObject("recordOpaquePass", "options", options);
    const sizeBytes = optionalCount("recordOpaquePass", "sizeBytes", options.sizeBytes);
    if (sizeBytes === undefined) throw new TypeError("recordOpaquePass: sizeBytes must be a count, not undefined");
    const hash = options.hash === undefined ? "" : requireString("recordOpaquePass", "hash", options.hash);
    const given = optionalObject("recordOpaquePass", "metadata", options.metadata);
    const givenCheck = optionalCanaryCheck("recordOpaquePass", options.canaryCheck);
    const policy = this.policy;
    const passNumber = ++this.passNumber;
    const passId = passIdFor(this.id, passNumber);
    if (options.original !== undefined)
      this.sendOriginal(requireString("recordOpaquePass", "original", options.original), null, passId);
    const canaries = this.canaryFields(null, givenCheck);
    const { receipt, manifest } = buildReceipt({
      chainId: this.id,
      contentClass: this.contentClass,
      passId,
      passNumber,
      inputHash: undefined,
      output: "",
      opaque: { hash, sizeBytes },
      density: 1,
      parseable: true,
      schemaValid: true,
      policy,
      metadata: { ...this.metadata, ...given, content: "opaque", density_measured: false },
      canaries: canaries.canaries,
      canaryCheck: canaries.check ?? undefined,
      createdAt: this.host.now(),
    });
    this.last = null;
    this.host.send("pass", receipt as unknown as Record<string, unknown>);
    const measured = this.host.measure("", { source: null, policy, originals: new Map() });
    return {
      verdict: manifest.verdict,
      directive: manifest.directive,
      manifestDigest: manifest.manifest_digest,
      receipt,
      measured,
      output: "",
      originalKey: null,
      canaryCheck: canaries.check,
    };
  }

  private sendOriginal(original: string, compressed: string | null, passId: string): void {
    this.host.send("original", {
      original,
      ...(compressed === null ? {} : { compressed }),
      hash: markerKey(sha256Hex(original)),
      chain_id: this.id,
      pass_id: passId,
    });
  }

  /** Records a compression-boundary receipt (what `compressUntilFloor` sends at a breach). */
  recordBoundary(boundary: Omit<BoundaryReceipt, "chain_id">): BoundaryReceipt {
    optionalObject("recordBoundary", "boundary", boundary);
    optionalCount("recordBoundary", "pass_number", boundary.pass_number);
    const strategy = requireStrategy("recordBoundary", "strategy", boundary.strategy);
    requireString("recordBoundary", "reason", boundary.reason);
    if (strategy === "restore" && boundary.restore_pass_id === undefined)
      throw new RangeError("recordBoundary: a restore names the pass it restores (restore_pass_id)");
    if (boundary.restore_pass_id !== undefined)
      requireId("recordBoundary", "restore_pass_id", boundary.restore_pass_id);
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
    requireString("compressUntilFloor", "content", content);
    requireFunction("compressUntilFloor", "compress", compress);
    if (options.onBreach !== undefined) requireFunction("compressUntilFloor", "onBreach", options.onBreach);
    const limit = optionalCount("compressUntilFloor", "maxPasses", options.maxPasses) ?? 100;
    const policy = await this.ready();
    const passes: PassResult[] = [];
    let current = content;
    while (passes.length < limit) {
      const previousPassId = this.last?.passId ?? null;
      const made: unknown = await compress(current, this.passNumber + 1);
      const next = typeof made === "string" ? made : (made as { output?: unknown } | null)?.output;
      if (typeof next !== "string")
        throw new TypeError(
          `compressUntilFloor: compress must return a string or { output, density }, not ${kindOf(made)}`,
        );
      if (next === current) {
        return { content: current, strategy: null, reason: "the compressor made no progress", passes, boundary: null };
      }
      const density = typeof made === "string" ? undefined : (made as { density?: number }).density;
      const pass = this.recordPass(current, next, { density });
      passes.push(pass);
      if (!COLLAPSE_VERDICTS.has(pass.verdict)) {
        current = pass.output;
        continue;
      }
      const picked = await options.onBreach?.({ pass, policy, previous: current });
      const chosen =
        picked === undefined || picked === null
          ? defaultStrategy(pass.verdict)
          : requireStrategy("compressUntilFloor", "onBreach's answer", picked);
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

interface CanaryFields {
  canaries?: Canary[];
  check: CanaryCheck | null;
}

function optionalCanaryCheck(where: string, check: unknown): CanaryCheck | undefined {
  if (check === undefined) return undefined;
  const given = optionalObject(where, "canaryCheck", check) as Partial<CanaryCheck> | undefined;
  if (
    !given ||
    !Array.isArray(given.surviving) ||
    !given.surviving.every((id) => typeof id === "string") ||
    !Number.isSafeInteger(given.checked_text_bytes) ||
    (given.checked_text_bytes as number) < 0
  )
    throw new TypeError(`${where}: canaryCheck must be what checkCanaries returns ({ surviving, checked_text_bytes })`);
  return given as CanaryCheck;
}

function optionalToolNames(where: string, tools: unknown): readonly string[] | undefined {
  if (tools === undefined) return undefined;
  if (
    !Array.isArray(tools) ||
    tools.length > 64 ||
    !tools.every((t) => typeof t === "string" && t.length >= 1 && t.length <= 128)
  )
    throw new TypeError(`${where}: contextTools must be at most 64 tool names of 1 to 128 characters`);
  return tools;
}

function relaxed(policy: Policy): Record<string, unknown> {
  return {
    min_size_bytes: policy.min_size_bytes,
    min_semantic_density: policy.min_semantic_density,
    max_pass_number: policy.max_pass_number,
  };
}
