// Floorline's own Prometheus series, registered once. Use cases call the small functions
// below where they decide something happened (a pass stored, a chain collapsing); route
// handlers only time requests. prom-client keeps everything in memory and does no I/O, so
// this module stays in lib/; the store gauges read the database through a source that the
// server registers at start-up (`setStoreStatsSource`).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { MISS_REASONS } from "../originals/rules";
import { INTEGRITY_KINDS, type IntegrityKind } from "../chains/integrity";
import { BOUNDARY_STRATEGIES, type BoundaryStrategy } from "../schemas/boundaries";
import { ORIGINAL_STATUSES, type OriginalStatus } from "../schemas/originals";
import { processSingleton } from "../process-singleton";
import { errorFields, logger } from "./log";

const RETRIEVAL_OUTCOMES = ["hit", ...MISS_REASONS] as const;
/** `budget`: evicted to stay within the byte budget; `ttl`: expired; `deleted`: a client deleted it. */
const EVICTION_REASONS = ["budget", "ttl", "deleted"] as const;
/** `delivered`: a 2xx answer; `failed`: an attempt that will be retried; `abandoned`: retries exhausted. */
const DELIVERY_OUTCOMES = ["delivered", "failed", "abandoned"] as const;
const EVALUATE_PATHS = ["split", "whole", "parsed"] as const;

export type RetrievalOutcome = (typeof RETRIEVAL_OUTCOMES)[number];
export type EvictionReason = (typeof EVICTION_REASONS)[number];
type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];
type EvaluatePath = (typeof EVALUATE_PATHS)[number];

/** What the store gauges show; read from the database's own counters. */
export interface StoreStats {
  bytes: number;
  entries: Record<OriginalStatus, number>;
}
type StoreStatsSource = () => Promise<StoreStats>;

/** What the summary queue gauges show (db/ingest/summaries.ts). */
export interface SummaryQueueStats {
  passes: number;
  oldest_seconds: number;
}

interface SourceState<T> {
  source: (() => Promise<T>) | null;
  cached: { at: number; value: Promise<T | null> } | null;
  last: T | null;
}

/**
 * A database read behind gauges, at most every STORE_STATS_TTL_MS. The promise is cached, not
 * just the value: gauges that collect in the same scrape share one read.
 */
function cachedRead<T>(what: string): { state: SourceState<T>; read: () => Promise<T | null> } {
  const state: SourceState<T> = { source: null, cached: null, last: null };
  const read = (): Promise<T | null> => {
    const source = state.source;
    if (!source) return Promise.resolve(null);
    const now = Date.now();
    if (state.cached && now - state.cached.at < STORE_STATS_TTL_MS) return state.cached.value;
    const value = source().then(
      (stats) => {
        state.last = stats;
        return stats;
      },
      (error) => {
        // A scrape must still answer (with the process and counter series) while the
        // database is down; the last value read, if any, is better than none.
        logger.error({ err: errorFields(error) }, `metrics: could not read ${what}`);
        if (state.cached?.value === value) state.cached = null;
        return state.last;
      },
    );
    state.cached = { at: now, value };
    return value;
  };
  return { state, read };
}

/** Request latency buckets: ingest of a 5,000-receipt batch takes about a second. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// A scrape every 15 s from several Prometheus servers should cost the database one small
// read at most every few seconds.
const STORE_STATS_TTL_MS = 5_000;

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool rejects; the same counts stay available per
  // type as nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    registry.removeSingleMetric(name);
  }

  const store = cachedRead<StoreStats>("the store gauges");
  const queue = cachedRead<SummaryQueueStats>("the summary queue gauges");

  const m = {
    registry,
    store: store.state,
    queue: queue.state,
    passesIngested: new Counter({
      name: "floorline_passes_ingested_total",
      help: "Pass receipts stored, by content class and the server's verdict the chain follows (density_source).",
      labelNames: ["content_class", "verdict"] as const,
      registers: [registry],
    }),
    clientMismatches: new Counter({
      name: "floorline_client_mismatches_total",
      help: "Stored receipts whose client verdict or digest disagreed with the server's.",
      labelNames: ["content_class"] as const,
      registers: [registry],
    }),
    measurementMismatches: new Counter({
      name: "floorline_measurement_mismatches_total",
      help: "Stored receipts whose measured density, parseability or schema changes the guard's verdict on the claims.",
      labelNames: ["content_class"] as const,
      registers: [registry],
    }),
    chainsStarted: new Counter({
      name: "floorline_chains_started_total",
      help: "Chains whose first pass was stored, by content class (the denominator of a collapse rate).",
      labelNames: ["content_class"] as const,
      registers: [registry],
    }),
    collapses: new Counter({
      name: "floorline_collapses_total",
      help: "Chains that collapsed (content went past a floor), once per chain, by content class and the verdict at the collapse point.",
      labelNames: ["content_class", "verdict"] as const,
      registers: [registry],
    }),
    guarded: new Counter({
      name: "floorline_guarded_total",
      help: "Chains guarded (the guard reached a floor and the agent obeyed through a boundary), once per chain, by content class and the boundary's strategy.",
      labelNames: ["content_class", "strategy"] as const,
      registers: [registry],
    }),
    integrityFindings: new Counter({
      name: "floorline_integrity_findings_total",
      help: "Integrity findings raised by stored receipts, by kind.",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    boundaries: new Counter({
      name: "floorline_boundaries_total",
      help: "Boundary receipts stored, by strategy.",
      labelNames: ["strategy"] as const,
      registers: [registry],
    }),
    tracesStored: new Counter({
      name: "floorline_traces_stored_total",
      help: "Distilled traces stored.",
      registers: [registry],
    }),
    traceRejections: new Counter({
      name: "floorline_trace_rejections_total",
      help: "Trace submissions refused fail-closed (a conclusion without a receipt).",
      registers: [registry],
    }),
    ccrRetrievals: new Counter({
      name: "floorline_ccr_retrievals_total",
      help: "Retrievals of cached originals, by outcome.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    ccrEvictions: new Counter({
      name: "floorline_ccr_evictions_total",
      help: "Cached originals removed from the store, by reason (budget, ttl or deleted).",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    evaluateBatches: new Counter({
      name: "floorline_evaluate_requests_total",
      help: "POST /api/v1/evaluate answers, by path: split (a large plain batch, half of it on a worker thread), whole (a plain batch on the request's thread), parsed (parsed and validated in full).",
      labelNames: ["path"] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: "floorline_webhook_deliveries_total",
      help: "Webhook delivery attempts, by outcome.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: "floorline_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route pattern, method and status.",
      labelNames: ["route", "method", "status"] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
  };

  // A gauge without labels that shows one figure of a database read.
  const readGauge = <T>(name: string, help: string, read: () => Promise<T | null>, value: (stats: T) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const stats = await read();
        if (stats) this.set(value(stats));
      },
    });
  readGauge(
    "floorline_ccr_store_bytes",
    "Bytes of live cached originals (original plus compressed text).",
    store.read,
    (s) => s.bytes,
  );
  new Gauge({
    name: "floorline_ccr_entries",
    help: "Cached originals by status; evicted and expired ones are tombstones.",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const stats = await store.read();
      if (stats) for (const status of ORIGINAL_STATUSES) this.set({ status }, stats.entries[status]);
    },
  });
  readGauge(
    "floorline_fold_queue_passes",
    "Passes stored but not yet folded into their chains' summaries, the roll-ups and the webhook outbox.",
    queue.read,
    (s) => s.passes,
  );
  readGauge(
    "floorline_fold_queue_oldest_seconds",
    "How long the oldest batch waiting for the summariser has waited; 0 when none waits.",
    queue.read,
    (s) => s.oldest_seconds,
  );

  // Series with a small, known label set start at zero, so a rate() over them is defined
  // from the first scrape instead of from the first event.
  for (const kind of INTEGRITY_KINDS) m.integrityFindings.inc({ kind }, 0);
  for (const strategy of BOUNDARY_STRATEGIES) m.boundaries.inc({ strategy }, 0);
  for (const outcome of RETRIEVAL_OUTCOMES) m.ccrRetrievals.inc({ outcome }, 0);
  for (const reason of EVICTION_REASONS) m.ccrEvictions.inc({ reason }, 0);
  for (const outcome of DELIVERY_OUTCOMES) m.webhookDeliveries.inc({ outcome }, 0);
  for (const path of EVALUATE_PATHS) m.evaluateBatches.inc({ path }, 0);
  return m;
}

type Metrics = ReturnType<typeof createMetrics>;

// Next.js bundles route handlers and instrumentation separately, and dev reloads modules:
// one registry per process keeps every copy of this module counting into the same series.
const registered = processSingleton("metrics", () => ({ current: undefined as Metrics | undefined }));

function metrics(): Metrics {
  registered.current ??= createMetrics();
  return registered.current;
}

/** Where the store gauges come from; the server sets it once, at start-up. */
export function setStoreStatsSource(source: StoreStatsSource | null): void {
  resetSource(metrics().store, source);
}

/** Where the summary queue gauges come from; the server sets it once, at start-up. */
export function setSummaryQueueSource(source: (() => Promise<SummaryQueueStats>) | null): void {
  resetSource(metrics().queue, source);
}

function resetSource<T>(state: SourceState<T>, source: (() => Promise<T>) | null): void {
  state.source = source;
  state.cached = null;
  state.last = null;
}

/** The exposition in Prometheus' text format. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Drops every recorded value (tests only: a counter never goes back in a running server). */
export function resetMetrics(): void {
  registered.current = undefined;
}

// ---------------------------------------------------------------------------------------
// What the use cases record

interface IngestedPass {
  content_class: string;
  verdict: string;
  /** The verdict the chain follows, where it is not `verdict` (density_source measured). */
  effective_verdict?: string;
  client_mismatch: boolean;
  measurement_mismatch?: boolean;
}

/** Receipts newly stored by one ingest (retries of stored receipts are not counted again). */
export function recordPassesIngested(passes: readonly IngestedPass[]): void {
  const m = metrics();
  for (const p of passes) {
    m.passesIngested.inc({ content_class: p.content_class, verdict: p.effective_verdict ?? p.verdict });
    if (p.client_mismatch) m.clientMismatches.inc({ content_class: p.content_class });
    if (p.measurement_mismatch) m.measurementMismatches.inc({ content_class: p.content_class });
  }
}

/** A chain whose first passes this ingest stored. */
export function recordChainStarted(contentClass: string): void {
  metrics().chainsStarted.inc({ content_class: contentClass });
}

/** A chain that collapsed: content went past a floor (the first time for this chain). */
export function recordCollapse(contentClass: string, verdict: string): void {
  metrics().collapses.inc({ content_class: contentClass, verdict });
}

/** A chain the guard saved: a boundary answered its floor (the first time for this chain). */
export function recordGuarded(contentClass: string, strategy: BoundaryStrategy): void {
  metrics().guarded.inc({ content_class: contentClass, strategy });
}

export function recordIntegrityFindings(kinds: readonly IntegrityKind[]): void {
  const m = metrics();
  for (const kind of kinds) m.integrityFindings.inc({ kind });
}

export function recordBoundaries(strategies: readonly BoundaryStrategy[]): void {
  const m = metrics();
  for (const strategy of strategies) m.boundaries.inc({ strategy });
}

export function recordTraceStored(): void {
  metrics().tracesStored.inc();
}

export function recordTraceRejected(): void {
  metrics().traceRejections.inc();
}

export function recordRetrieval(outcome: RetrievalOutcome): void {
  metrics().ccrRetrievals.inc({ outcome });
}

export function recordEvictions(reason: EvictionReason, count: number): void {
  if (count > 0) metrics().ccrEvictions.inc({ reason }, count);
}

export function recordEvaluate(path: EvaluatePath): void {
  metrics().evaluateBatches.inc({ path });
}

export function recordDelivery(outcome: DeliveryOutcome): void {
  metrics().webhookDeliveries.inc({ outcome });
}

/** One answered request; `route` is the registry's pattern, never the raw path. */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  metrics().requestDuration.observe({ route, method: method.toUpperCase(), status: String(status) }, seconds);
}
