// The client an agent holds: its chains, the policies, delivery, and the calls that do wait on
// the server (retrieve) kept apart from those that never do (recordPass, distill).
import { type ReasoningNode, type CompressedResidual, compressTrace } from "../../../lib/traces/trace";
import { sha256Hex } from "../../../lib/guard/hash";
import { parseHashKey } from "../../../lib/originals/marker";
import { kindOf, optionalObject, requireFunction, requireId, requireString } from "./args";
import { Chain, type ChainHost, type ChainOptions } from "./chain";
import { Delivery, type DeliveryStats, type ItemKind, ZERO_COUNTERS } from "./delivery";
import { watchExit } from "./exit";
import { FloorlineError, httpTransport, type Transport } from "./http";
import { traceIdFor, wireNode } from "./ids";
import { type MeasureFn, measureShared } from "./measure";
import { asGiven, Policies } from "./policies";
import type { Policy } from "./receipt";
import { type DeliveryReport, defaultOnError, type Item, lossLine, ReceiptsLostError } from "./report";

export interface FloorlineOptions {
  /**
   * The server, e.g. `http://127.0.0.1:3000`; `FLOORLINE_URL` when not given. Without either
   * (or a `transport`) the client guards and measures offline and sends nothing.
   */
  url?: string;
  /** `FLOORLINE_API_KEY` when not given. */
  apiKey?: string;
  /** Policies per content class, winning over the server's. */
  policies?: Record<string, Policy>;
  /** Store each pass's input as a cached original and add the CCR marker to the output. */
  cacheOriginals?: boolean;
  /** Send each pass's output in its receipt, so the server checks and measures it too. */
  sendContent?: boolean;
  /** How long ready() (and so compressUntilFloor) waits for the server's policy before deciding on the default. */
  policyWaitMs?: number;
  maxQueueSize?: number;
  maxBatchSize?: number;
  scheduledDelayMs?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  requestTimeoutMs?: number;
  /**
   * How long the flush at exit (beforeExit, SIGINT, SIGTERM) and close() wait without an answer
   * from the server before they give up: an unreachable server holds the process this long.
   */
  exitTimeoutMs?: number;
  flushOnExit?: boolean;
  /**
   * Items the server refused, or that were not delivered by close; never retried. By default
   * each refusal is printed with its reason (up to ten, then counted), and close() prints what
   * was not delivered and to where.
   */
  onError?: (error: FloorlineError, items: Item[]) => void;
  /** Replaces the measurement (the shared one by default). */
  measure?: MeasureFn;
  /** Where requests go in place of HTTP to `url` (tests, or an agent inside the server's process). */
  transport?: Transport;
  /** Dates each receipt's created_at (default: the time it is recorded). */
  clock?: () => Date;
}

export const DEFAULTS = {
  maxQueueSize: 10_000,
  maxBatchSize: 500,
  scheduledDelayMs: 1_000,
  initialBackoffMs: 500,
  maxBackoffMs: 5_000,
  requestTimeoutMs: 30_000,
  exitTimeoutMs: 5_000,
  policyWaitMs: 2_000,
} as const;

export interface CloseOptions {
  /**
   * How long to go on delivering without an answer from the server (default exitTimeoutMs):
   * delivery goes on while batches are taken, and what is left when none has been for this
   * long is undelivered.
   */
  timeoutMs?: number;
  /** Throw a ReceiptsLostError when anything was refused, dropped or left undelivered. */
  throwOnLoss?: boolean;
}

const MAX_CHAINS = 10_000;

export interface Original {
  hash: string;
  original: string;
  /** True when the original came from this client's own queue, not yet answered for by the server. */
  pending?: boolean;
  [field: string]: unknown;
}

export class Floorline {
  private readonly transport: Transport | null;
  private readonly delivery: Delivery | null;
  private readonly policies: Policies;
  private readonly chains = new Map<string, Chain>();
  private readonly host: ChainHost;
  private readonly unwatch: () => void;
  /** How the server is named in what the client prints. */
  private readonly where: string;
  private readonly usesDefaultOnError: boolean;
  private readonly exitTimeoutMs: number;
  private closing: Promise<DeliveryReport> | null = null;

  constructor(options: FloorlineOptions = {}) {
    optionalObject("Floorline", "options", options);
    const o = { ...DEFAULTS, ...definedOnly(options) };
    const url = options.url ?? (options.transport ? undefined : process.env.FLOORLINE_URL || undefined);
    if (url !== undefined) requireString("Floorline", "url", url);
    const apiKey = options.apiKey ?? (process.env.FLOORLINE_API_KEY || undefined);
    if (options.onError !== undefined) requireFunction("Floorline", "onError", options.onError);
    this.where = url ? url.replace(/\/+$/, "") : "the server";
    this.exitTimeoutMs = o.exitTimeoutMs;
    this.transport = options.transport ?? (url ? httpTransport(url, apiKey, o.requestTimeoutMs) : null);
    this.policies = new Policies(this.transport, options.policies, o.policyWaitMs);
    this.usesDefaultOnError = options.onError === undefined;
    this.delivery = this.transport
      ? new Delivery(this.transport, {
          maxBatchSize: o.maxBatchSize,
          scheduledDelayMs: o.scheduledDelayMs,
          maxQueueSize: o.maxQueueSize,
          initialBackoffMs: o.initialBackoffMs,
          maxBackoffMs: o.maxBackoffMs,
          onError: options.onError ?? defaultOnError(this.where, warn),
          onResult: (kind, result) => this.noticeResult(kind, result),
          where: this.where,
          warn,
        })
      : null;
    this.host = {
      policyNow: (c) => this.policies.now(c),
      policyReady: (c) => this.policies.ready(c),
      givenPolicy: asGiven,
      measure: options.measure ?? measureShared,
      cacheOriginals: options.cacheOriginals ?? false,
      sendContent: options.sendContent ?? false,
      now: options.clock ?? (() => new Date()),
      send: (kind, body) => this.send(kind, body),
    };
    this.unwatch = this.delivery && (options.flushOnExit ?? true) ? watchExit(this, o.exitTimeoutMs) : () => undefined;
  }

  /**
   * The chain with this id: the same object each time, so its passes go on being numbered;
   * asking for it again with another content class is an error. Starts its class's policy read.
   */
  chain(id: string, options: ChainOptions = {}): Chain {
    requireId("chain", "chainId", id);
    optionalObject("chain", "options", options);
    if (options.contentClass !== undefined) requireId("chain", "contentClass", options.contentClass);
    let chain = this.chains.get(id);
    if (chain) {
      if (options.contentClass !== undefined && options.contentClass !== chain.contentClass)
        throw new RangeError(
          `chain: ${JSON.stringify(id)} is already a chain of class ${JSON.stringify(chain.contentClass)}, not ${JSON.stringify(options.contentClass)}`,
        );
      return chain;
    }
    chain = new Chain(this.host, id, options);
    this.chains.set(id, chain);
    // An agent that runs for days opens chains without end; the client remembers the recent ones.
    if (this.chains.size > MAX_CHAINS) this.chains.delete(this.chains.keys().next().value as string);
    if (!chain.hasOwnPolicy) void this.policies.ready(chain.contentClass);
    return chain;
  }

  /** Runs the trace compressor locally (throwing as the reference does) and sends the trace. */
  distill(
    nodes: readonly ReasoningNode[],
    options: { traceId?: string; chainId?: string; keepNodes?: boolean; parentTraceId?: string } = {},
  ): CompressedResidual & { trace_id: string } {
    if (!Array.isArray(nodes)) throw new TypeError(`distill: nodes must be an array, not ${kindOf(nodes)}`);
    optionalObject("distill", "options", options);
    const residual = compressTrace(nodes);
    const traceId =
      options.traceId === undefined ? traceIdFor(nodes) : requireId("distill", "traceId", options.traceId);
    // The predecessor this trace continues: the server compares the two (docs/lineage.md).
    const parentTraceId =
      options.parentTraceId === undefined ? undefined : requireId("distill", "parentTraceId", options.parentTraceId);
    if (parentTraceId === traceId) throw new RangeError("distill: parentTraceId cannot be the trace's own id");
    this.send("trace", {
      trace_id: traceId,
      nodes: nodes.map(wireNode),
      residual_digest: residual.residual_digest,
      ...(options.chainId ? { chain_id: options.chainId } : {}),
      ...(parentTraceId ? { parent_trace_id: parentTraceId } : {}),
      ...(options.keepNodes ? { keep_nodes: true } : {}),
    });
    return { ...residual, trace_id: traceId };
  }

  /**
   * An original back: from this client's queue while it is not yet delivered, else from the
   * server's store (`POST /api/v1/retrieve`). A miss throws with the server's code
   * (unknown_hash, evicted, expired, ambiguous_hash).
   */
  async retrieve(hash: string): Promise<Original> {
    requireString("retrieve", "hash", hash);
    const key = parseHashKey(hash);
    const pending = key.ok ? this.delivery?.pendingOriginal(key.key, sha256Hex) : null;
    if (pending) return { ...pending, pending: true };
    if (!this.transport) throw new FloorlineError(0, "offline", "retrieve needs a url: there is no store offline");
    return (await this.transport.request("POST", "/api/v1/retrieve", { hash })) as Original;
  }

  get stats(): DeliveryStats {
    return { ...(this.delivery?.counters ?? ZERO_COUNTERS) };
  }

  /**
   * Resolves when everything recorded so far is delivered or refused: it waits through outages,
   * unless `timeoutMs` is given. Answers whether everything got an answer.
   */
  async flush(timeoutMs?: number): Promise<boolean> {
    if (!this.delivery) return true;
    if (timeoutMs === undefined) {
      await this.delivery.flush();
      return true;
    }
    return this.delivery.flushWithin(timeoutMs);
  }

  /**
   * Delivers while the server takes batches, until none has been taken for `timeoutMs` (default
   * exitTimeoutMs), then stops delivering: what is left is undelivered and goes to onError.
   * Answers what became of everything recorded; with `throwOnLoss`, throws a ReceiptsLostError
   * instead when anything was lost.
   */
  async close(options: number | CloseOptions = {}): Promise<DeliveryReport> {
    const { timeoutMs = this.exitTimeoutMs, throwOnLoss = false } =
      typeof options === "number" ? { timeoutMs: options } : options;
    this.closing ??= (async () => {
      this.unwatch();
      const report = this.delivery
        ? await this.delivery.close(timeoutMs)
        : { delivered: 0, refused: 0, dropped: 0, undelivered: 0, ok: true };
      if (!report.ok && this.usesDefaultOnError) warn(lossLine(report, this.where, this.delivery?.lastProblem ?? null));
      return report;
    })();
    const report = await this.closing;
    if (throwOnLoss && !report.ok) throw new ReceiptsLostError(report, this.where);
    return report;
  }

  private send(kind: ItemKind, body: Record<string, unknown>): void {
    this.delivery?.enqueue({ kind, body });
  }

  /** The server says which policy version judged each receipt: a new one means read it again. */
  private noticeResult(kind: ItemKind, result: Record<string, unknown>): void {
    if (kind !== "pass" || typeof result.policy_version !== "number") return;
    const chain = typeof result.chain_id === "string" ? this.chains.get(result.chain_id) : undefined;
    if (chain && !chain.hasOwnPolicy) this.policies.noticeVersion(chain.contentClass, result.policy_version);
  }
}

function warn(line: string): void {
  console.warn(line);
}

/** Options left undefined take their defaults. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
