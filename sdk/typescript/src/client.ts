// The client an agent holds: its chains, the policy cache, delivery, and the calls that do
// wait on the server (retrieve) kept apart from those that never do (recordPass, distill).
import { CONSERVATIVE_DEFAULT_POLICY } from "../../../lib/guard/policy";
import { type ReasoningNode, type CompressedResidual, compressTrace } from "../../../lib/traces/trace";
import { sha256Hex } from "../../../lib/guard/hash";
import { Chain, type ChainHost, type ChainOptions } from "./chain";
import { Delivery, type DeliveryCounters, type Item, type ItemKind } from "./delivery";
import { FloorlineError, httpTransport, type Transport } from "./http";
import { type MeasureFn, measureShared } from "./measure";
import type { Policy } from "./receipt";
import { watchExit } from "./exit";

export interface FloorlineOptions {
  /** The server, e.g. `http://127.0.0.1:3000`. Without it the client guards and measures offline and sends nothing. */
  url?: string;
  apiKey?: string;
  /** Policies per content class for when the server cannot be asked (or there is none). */
  policies?: Record<string, Policy>;
  /** Store each pass's input as a cached original and add the CCR marker to the output. */
  cacheOriginals?: boolean;
  /** Send each pass's output in its receipt, so the server checks and measures it too. */
  sendContent?: boolean;
  maxQueueSize?: number;
  maxBatchSize?: number;
  scheduledDelayMs?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  requestTimeoutMs?: number;
  /** How long the flush at exit (beforeExit, SIGINT, SIGTERM) may take. */
  exitTimeoutMs?: number;
  flushOnExit?: boolean;
  /** Items the server refused, or that could not be delivered by close; never retried. */
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
  exitTimeoutMs: 10_000,
} as const;

const MAX_CHAINS = 10_000;

export interface Original {
  hash: string;
  original: string;
  [field: string]: unknown;
}

interface CachedPolicy {
  policy: Policy;
  /** From the server; null while only the offline policy is known. */
  version: number | null;
  fetching: Promise<Policy> | null;
}

export class Floorline {
  private readonly transport: Transport | null;
  private readonly delivery: Delivery | null;
  private readonly policies = new Map<string, CachedPolicy>();
  private readonly chains = new Map<string, Chain>();
  private readonly host: ChainHost;
  private readonly unwatch: () => void;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: FloorlineOptions = {}) {
    const o = { ...DEFAULTS, ...options };
    this.transport =
      options.transport ?? (options.url ? httpTransport(options.url, options.apiKey, o.requestTimeoutMs) : null);
    this.delivery = this.transport
      ? new Delivery(this.transport, {
          maxBatchSize: o.maxBatchSize,
          scheduledDelayMs: o.scheduledDelayMs,
          maxQueueSize: o.maxQueueSize,
          initialBackoffMs: o.initialBackoffMs,
          maxBackoffMs: o.maxBackoffMs,
          onError: options.onError ?? warnOnce(),
          onResult: (kind, result) => this.noticeResult(kind, result),
        })
      : null;
    this.host = {
      policyNow: (c) => this.policyNow(c),
      policyReady: (c) => this.policyReady(c),
      measure: options.measure ?? measureShared,
      cacheOriginals: options.cacheOriginals ?? false,
      sendContent: options.sendContent ?? false,
      now: options.clock ?? (() => new Date()),
      send: (kind, body) => this.send(kind, body),
    };
    this.unwatch = this.delivery && (options.flushOnExit ?? true) ? watchExit(this, o.exitTimeoutMs) : () => undefined;
  }

  /** The chain with this id (the same object each time), starting its class's policy fetch. */
  chain(id: string, options: ChainOptions = {}): Chain {
    let chain = this.chains.get(id);
    if (!chain) {
      chain = new Chain(this.host, id, options);
      this.chains.set(id, chain);
      // An agent that runs for days opens chains without end; the client remembers the recent ones.
      if (this.chains.size > MAX_CHAINS) this.chains.delete(this.chains.keys().next().value as string);
      void this.policyReady(chain.contentClass);
    }
    return chain;
  }

  /** Runs the trace compressor locally (throwing as the reference does) and sends the trace. */
  distill(
    nodes: readonly ReasoningNode[],
    options: { traceId?: string; chainId?: string; keepNodes?: boolean } = {},
  ): CompressedResidual & { trace_id: string } {
    const residual = compressTrace(nodes);
    const traceId = options.traceId ?? `trace-${sha256Hex(JSON.stringify(nodes)).slice(0, 24)}`;
    this.send("trace", {
      trace_id: traceId,
      nodes,
      residual_digest: residual.residual_digest,
      ...(options.chainId ? { chain_id: options.chainId } : {}),
      ...(options.keepNodes ? { keep_nodes: true } : {}),
    });
    return { ...residual, trace_id: traceId };
  }

  /** An original back from the server's store; a miss throws with the server's code (unknown_hash, evicted, expired...). */
  async retrieve(hash: string): Promise<Original> {
    if (!this.transport) throw new FloorlineError(0, "offline", "retrieve needs a url: there is no store offline");
    const answer = await this.transport.request(
      "GET",
      `/api/v1/originals/${encodeURIComponent(hash.replace(/^hash=/, ""))}`,
    );
    return answer as Original;
  }

  get stats(): DeliveryCounters {
    return { ...(this.delivery?.counters ?? { sent: 0, retried: 0, dropped: 0, failed: 0, queued: 0 }) };
  }

  /** Resolves when everything recorded so far is delivered or refused (it waits through outages). */
  async flush(): Promise<void> {
    await this.delivery?.flush();
  }

  /** Flushes for at most `timeoutMs` (what is left goes to onError), then stops delivering. */
  close(timeoutMs = this.options.exitTimeoutMs ?? DEFAULTS.exitTimeoutMs): Promise<void> {
    this.closing ??= (async () => {
      this.unwatch();
      await this.delivery?.close(timeoutMs);
    })();
    return this.closing;
  }

  private send(kind: ItemKind, body: Record<string, unknown>): void {
    this.delivery?.enqueue({ kind, body });
  }

  private policyNow(contentClass: string): Policy {
    return this.policies.get(contentClass)?.policy ?? this.offlinePolicy(contentClass);
  }

  /** Per class, made once: recordPass asks for its policy on every pass. */
  private readonly defaults = new Map<string, Policy>();

  private offlinePolicy(contentClass: string): Policy {
    const given = this.options.policies?.[contentClass];
    if (given) return given;
    let policy = this.defaults.get(contentClass);
    if (!policy) {
      policy = { ...CONSERVATIVE_DEFAULT_POLICY, content_class: contentClass, version: 0 };
      this.defaults.set(contentClass, policy);
      if (this.defaults.size > MAX_CHAINS) this.defaults.delete(this.defaults.keys().next().value as string);
    }
    return policy;
  }

  private policyReady(contentClass: string): Promise<Policy> {
    const cached = this.policies.get(contentClass);
    if (cached?.fetching) return cached.fetching;
    if (cached && cached.version !== null) return Promise.resolve(cached.policy);
    return this.fetchPolicy(contentClass);
  }

  private fetchPolicy(contentClass: string): Promise<Policy> {
    const transport = this.transport;
    if (!transport) return Promise.resolve(this.policyNow(contentClass));
    const entry: CachedPolicy = this.policies.get(contentClass) ?? {
      policy: this.offlinePolicy(contentClass),
      version: null,
      fetching: null,
    };
    this.policies.set(contentClass, entry);
    entry.fetching = transport
      .request("GET", `/api/v1/policies/${encodeURIComponent(contentClass)}`)
      .then((answer) => {
        if (!isPolicy(answer)) return entry.policy;
        const policy = answer;
        entry.policy = policy;
        entry.version = typeof policy.version === "number" ? policy.version : null;
        return policy;
      })
      // Offline (or refused): the offline policy stands, and the next ready() asks again.
      .catch(() => entry.policy)
      .finally(() => {
        entry.fetching = null;
      });
    return entry.fetching;
  }

  /** The server says which policy version judged each receipt: a new one means refetch. */
  private noticeResult(kind: ItemKind, result: Record<string, unknown>): void {
    if (kind !== "pass" || typeof result.policy_version !== "number") return;
    const chain = typeof result.chain_id === "string" ? this.chains.get(result.chain_id) : undefined;
    if (!chain) return;
    const cached = this.policies.get(chain.contentClass);
    if (cached && !cached.fetching && cached.version !== result.policy_version)
      void this.fetchPolicy(chain.contentClass);
  }
}

function isPolicy(value: unknown): value is Policy {
  const p = value as Partial<Policy> | null;
  return (
    typeof p?.min_size_bytes === "number" &&
    typeof p.min_semantic_density === "number" &&
    typeof p.max_pass_number === "number"
  );
}

function warnOnce(): (error: FloorlineError, items: Item[]) => void {
  let warned = false;
  return (error, items) => {
    if (warned) return;
    warned = true;
    console.warn(`floorline: ${items.length} items not delivered (${error.code}): ${error.message}`);
  };
}
