// The delivery loop, after OpenTelemetry's BatchSpanProcessor: the agent's call only queues;
// one export runs at a time, a batch goes when it is full or when the delay has passed, and
// the queue is bounded so an unreachable server costs memory up to the bound, never more.
import { FloorlineError, type Transport } from "./http";
import {
  type DeliveryReport,
  fullLine,
  type Item,
  type ItemKind,
  reachedLine,
  report,
  unreachableLine,
} from "./report";

export type { Item, ItemKind } from "./report";

export interface DeliveryOptions {
  maxBatchSize: number;
  scheduledDelayMs: number;
  maxQueueSize: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  onError: (error: FloorlineError, items: Item[]) => void;
  /** Each stored receipt's answer, for the client's policy cache. */
  onResult?: (kind: ItemKind, result: Record<string, unknown>) => void;
  /** The server's address in what is printed ("the server" for a transport of the agent's own). */
  where: string;
  /** Where the lines about an outage or a full queue go. */
  warn: (line: string) => void;
}

export interface DeliveryCounters {
  /** Items the server stored (or had already stored: resends are idempotent). */
  sent: number;
  /** Items sent again after a network error, a 429, 502, 503 or 504. */
  retried: number;
  /** Items dropped, oldest first, because the queue was full. */
  dropped: number;
  /** refused + undelivered. */
  failed: number;
  /** Items waiting or in flight now. */
  queued: number;
}

/** The counters with failed split in two, and sent under the name the report gives it. */
export interface DeliveryStats extends DeliveryCounters {
  /** The same as sent. */
  delivered: number;
  /** Items the server refused (any other 4xx, or a 500): never sent again. */
  refused: number;
  /** Items still undelivered when the client closed, or recorded after it closed. */
  undelivered: number;
}

export const ZERO_COUNTERS: DeliveryStats = {
  delivered: 0,
  sent: 0,
  retried: 0,
  dropped: 0,
  refused: 0,
  undelivered: 0,
  failed: 0,
  queued: 0,
};

const ENDPOINT: Record<ItemKind, { path: string; batchKey?: string }> = {
  pass: { path: "/api/v1/passes", batchKey: "receipts" },
  boundary: { path: "/api/v1/boundaries", batchKey: "boundaries" },
  original: { path: "/api/v1/originals" },
  trace: { path: "/api/v1/traces" },
};

/** A queue that drops from the front in O(1): a plain array with a moving head. */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  find<R>(test: (item: T) => R | null): R | null {
    for (let i = this.head; i < this.items.length; i++) {
      const found = test(this.items[i] as T);
      if (found !== null) return found;
    }
    return null;
  }
}

/**
 * Indices of the batch items a 409 or 422 names (`receipts.3.pass_number` → 3). An issue that
 * names no item means the server's reason is not about single items: then none are singled out.
 */
function badIndices(error: FloorlineError, batchKey: string, size: number): Set<number> {
  const bad = new Set<number>();
  if (error.status !== 409 && error.status !== 422) return bad;
  const pattern = new RegExp(`^${batchKey}\\.(\\d+)(?:\\.|$)`);
  for (const issue of error.issues) {
    const index = pattern.exec(issue.path)?.[1];
    if (index === undefined) return new Set();
    if (Number(index) < size) bad.add(Number(index));
  }
  return bad;
}

export class Delivery {
  readonly counters: DeliveryStats = { ...ZERO_COUNTERS };
  private readonly queue = new Queue<Item>();
  /** The batch being sent: still the client's until the server has answered for it. */
  private inFlight: Item[] = [];
  /** Why the server could not be reached, while it cannot (a notice was printed once). */
  private unreachable: string | null = null;
  /** The last reason the server could not be reached, for the line at close. */
  lastProblem: string | null = null;
  private dropping = false;
  /** Batches the server has answered for (stored or refused): what close() counts as progress. */
  private answered = 0;
  /** Aborts the request in flight when close() gives up, so nothing holds the process after. */
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** While someone waits for the queue to drain (flush, close, exit), timers keep the process alive. */
  private draining = 0;
  private closed = false;
  /** The backoff wait in progress, so that a flush can make it hold the process open. */
  private sleeping: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly transport: Transport,
    private readonly options: DeliveryOptions,
  ) {}

  enqueue(item: Item): void {
    if (this.closed) {
      this.fail("undelivered", new FloorlineError(0, "closed", "the client is closed; nothing more is sent"), [item]);
      return;
    }
    this.queue.push(item);
    if (this.queue.length <= this.options.maxQueueSize) this.dropping = false;
    while (this.queue.length > this.options.maxQueueSize) {
      this.queue.shift();
      this.counters.dropped++;
      if (!this.dropping) this.options.warn(fullLine(this.options.maxQueueSize));
      this.dropping = true;
    }
    this.counters.queued = this.queue.length + this.inFlight.length;
    // Originals and traces go one to a request: nothing to wait for, and an original sent at
    // once can be retrieved by anyone else the sooner (as the Python SDK sends them).
    if (this.queue.length >= this.options.maxBatchSize || !ENDPOINT[item.kind].batchKey) this.kick();
    else this.schedule();
  }

  /** A cached original not yet answered for by the server, by the key its marker carries (12 to 64 hex). */
  pendingOriginal(key: string, fullHash: (original: string) => string): { hash: string; original: string } | null {
    const matches = (item: Item | undefined): { hash: string; original: string } | null => {
      if (item?.kind !== "original" || typeof item.body.original !== "string") return null;
      const short = typeof item.body.hash === "string" ? item.body.hash : "";
      if (!(key.length <= short.length ? short.startsWith(key) : key.startsWith(short))) return null;
      const hash = fullHash(item.body.original);
      return hash.startsWith(key) ? { hash, original: item.body.original } : null;
    };
    for (const item of this.inFlight) {
      const found = matches(item);
      if (found) return found;
    }
    return this.queue.find(matches);
  }

  /** Resolves once everything queued before the call has been delivered, refused or dropped. */
  async flush(): Promise<void> {
    this.draining++;
    this.sleeping?.ref();
    try {
      while (this.queue.length > 0 || this.running) {
        this.kick();
        await this.running;
      }
    } finally {
      this.draining--;
    }
  }

  /** Like flush, for at most `timeoutMs`; true when everything got an answer in time. */
  async flushWithin(timeoutMs: number): Promise<boolean> {
    return (await this.raceFlush(timeoutMs)) === "flushed";
  }

  /**
   * Like flush, while the server keeps answering: gives up once no batch has been answered
   * (stored or refused) for `idleMs`. A server that cannot be reached holds the caller `idleMs`;
   * a busy one that keeps taking batches is not cut off in the middle of a large queue.
   */
  async flushWhileAnswered(idleMs: number): Promise<boolean> {
    for (;;) {
      const answered = this.answered;
      const outcome = await this.raceFlush(idleMs);
      if (outcome === "flushed") return true;
      if (this.answered === answered) return false;
    }
  }

  private async raceFlush(timeoutMs: number): Promise<"flushed" | "timeout"> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      return await Promise.race([this.flush().then(() => "flushed" as const), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Flushes while the server answers (giving up after `idleMs` without an answer), then stops:
   * what is left (the batch in flight too) counts as undelivered and goes to onError, so nothing
   * disappears without a word.
   */
  async close(idleMs: number): Promise<DeliveryReport> {
    if (!this.closed) {
      await this.flushWhileAnswered(idleMs);
      this.closed = true;
      if (this.timer) clearTimeout(this.timer);
      this.wake?.();
      const left: Item[] = [...this.inFlight];
      this.inFlight = [];
      for (let item = this.queue.shift(); item; item = this.queue.shift()) left.push(item);
      this.abort.abort();
      if (left.length > 0) {
        const why = this.lastProblem ? `; last problem: ${this.lastProblem}` : "";
        this.fail(
          "undelivered",
          new FloorlineError(
            0,
            "undelivered",
            `${left.length} items were still undelivered when the client closed${why}`,
          ),
          left,
        );
      }
      this.counters.queued = 0;
    }
    const c = this.counters;
    return report({ delivered: c.delivered, refused: c.refused, dropped: c.dropped, undelivered: c.undelivered });
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, this.options.scheduledDelayMs);
    this.timer.unref();
  }

  private kick(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.running || this.closed) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.queue.length > 0) this.schedule();
    });
  }

  /** Sends everything queued, batch after batch (new items that arrive meanwhile too). */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.closed) await this.exportBatch(this.takeBatch());
  }

  /** The oldest items of one kind, in order: a batch never reorders a chain's receipts. */
  private takeBatch(): Item[] {
    const first = this.queue.peek();
    if (!first) return [];
    const limit = ENDPOINT[first.kind].batchKey ? this.options.maxBatchSize : 1;
    const batch: Item[] = [];
    while (batch.length < limit && this.queue.peek()?.kind === first.kind) batch.push(this.queue.shift() as Item);
    this.inFlight = batch;
    return batch;
  }

  private async exportBatch(batch: Item[]): Promise<void> {
    let attempt = 0;
    let pending = batch;
    while (pending.length > 0 && !this.closed) {
      const kind = (pending[0] as Item).kind;
      const { path, batchKey } = ENDPOINT[kind];
      const body = batchKey ? { [batchKey]: pending.map((i) => i.body) } : (pending[0] as Item).body;
      try {
        const answer = await this.transport.request("POST", path, body, { signal: this.abort.signal });
        if (this.closed) return; // close() counted this batch undelivered and stopped waiting for it
        this.counters.delivered += pending.length;
        this.counters.sent = this.counters.delivered;
        this.answered++;
        this.reached();
        this.passOnResults(kind, answer, batchKey);
        pending = [];
      } catch (error) {
        if (this.closed) return;
        const failure = error instanceof FloorlineError ? error : FloorlineError.network(error);
        if (failure.retryable) {
          if (failure.code === "network_error") this.cannotReach(failure.message);
          attempt++;
          this.counters.retried += pending.length;
          await this.sleep(this.backoff(attempt, failure.retryAfterMs));
          continue;
        }
        this.reached();
        this.answered++;
        const bad = batchKey ? badIndices(failure, batchKey, pending.length) : new Set<number>();
        if (bad.size === 0 || bad.size === pending.length) {
          this.fail("refused", failure, pending);
          pending = [];
        } else {
          // All-or-nothing on the server: the items it named are refused, the rest go again.
          this.fail(
            "refused",
            failure,
            pending.filter((_, i) => bad.has(i)),
          );
          pending = pending.filter((_, i) => !bad.has(i));
          this.inFlight = pending;
        }
      }
    }
    this.inFlight = [];
    this.counters.queued = this.queue.length;
  }

  private cannotReach(problem: string): void {
    this.lastProblem = problem;
    if (this.unreachable !== null) return;
    this.unreachable = problem;
    this.options.warn(unreachableLine(problem, this.queue.length + this.inFlight.length));
  }

  private reached(): void {
    if (this.unreachable === null) return;
    this.unreachable = null;
    this.options.warn(reachedLine(this.options.where));
  }

  // Unref'd unless someone waits for delivery: an unreachable server must not keep an agent
  // process alive by itself; at exit the flush takes over with its own deadline.
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        if (this.sleeping) clearTimeout(this.sleeping);
        this.sleeping = null;
        this.wake = null;
        resolve();
      };
      this.sleeping = setTimeout(this.wake, ms);
      if (this.draining === 0) this.sleeping.unref();
    });
  }

  private fail(outcome: "refused" | "undelivered", error: FloorlineError, items: Item[]): void {
    this.counters[outcome] += items.length;
    this.counters.failed = this.counters.refused + this.counters.undelivered;
    try {
      this.options.onError(error, items);
    } catch {
      // A throwing callback must not stop delivery of everything behind it.
    }
  }

  private passOnResults(kind: ItemKind, answer: unknown, batchKey: string | undefined): void {
    const onResult = this.options.onResult;
    if (!onResult || typeof answer !== "object" || answer === null) return;
    const results = batchKey ? (answer as { results?: unknown }).results : [answer];
    if (!Array.isArray(results)) return;
    for (const result of results) if (typeof result === "object" && result !== null) onResult(kind, result);
  }

  /** Exponential, jittered over its upper half, never sooner than the server's Retry-After. */
  private backoff(attempt: number, retryAfterMs: number | null): number {
    const ceiling = Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** (attempt - 1));
    const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
    return retryAfterMs === null ? jittered : Math.max(retryAfterMs, jittered);
  }
}
