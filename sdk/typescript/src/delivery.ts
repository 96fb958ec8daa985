// The delivery loop, after OpenTelemetry's BatchSpanProcessor: the agent's call only queues;
// one export runs at a time, a batch goes when it is full or when the delay has passed, and
// the queue is bounded so an unreachable server costs memory up to the bound, never more.
import { FloorlineError, type Transport } from "./http";

export type ItemKind = "pass" | "boundary" | "original" | "trace";

export interface Item {
  kind: ItemKind;
  body: Record<string, unknown>;
}

export interface DeliveryOptions {
  maxBatchSize: number;
  scheduledDelayMs: number;
  maxQueueSize: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  onError: (error: FloorlineError, items: Item[]) => void;
  /** Each stored receipt's answer, for the client's policy cache. */
  onResult?: (kind: ItemKind, result: Record<string, unknown>) => void;
}

export interface DeliveryCounters {
  /** Items the server stored (or had already stored: resends are idempotent). */
  sent: number;
  /** Items sent again after a network error, a 429 or a 5xx. */
  retried: number;
  /** Items dropped, oldest first, because the queue was full. */
  dropped: number;
  /** Items the server refused (a 4xx other than 429) or that were still undelivered at close. */
  failed: number;
  /** Items waiting or in flight now. */
  queued: number;
}

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
  unshift(batch: T[]): void {
    this.items = [...batch, ...this.items.slice(this.head)];
    this.head = 0;
  }
}

/** Indices of the batch items a 422 names (`receipts.3.pass_number` → 3). */
function badIndices(error: FloorlineError, batchKey: string): Set<number> {
  const bad = new Set<number>();
  for (const issue of error.issues) {
    const [head, index] = issue.path.split(".");
    if (head === batchKey && index !== undefined && /^[0-9]+$/.test(index)) bad.add(Number(index));
  }
  return bad;
}

export class Delivery {
  readonly counters: DeliveryCounters = { sent: 0, retried: 0, dropped: 0, failed: 0, queued: 0 };
  private readonly queue = new Queue<Item>();
  private inFlight = 0;
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
      this.counters.failed++;
      this.options.onError(new FloorlineError(0, "closed", "the client is closed; nothing more is sent"), [item]);
      return;
    }
    this.queue.push(item);
    while (this.queue.length > this.options.maxQueueSize) {
      this.queue.shift();
      this.counters.dropped++;
    }
    this.counters.queued = this.queue.length + this.inFlight;
    if (this.queue.length >= this.options.maxBatchSize) this.kick();
    else this.schedule();
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

  /**
   * Flushes for at most `timeoutMs`, then stops: what is left counts as failed and goes to
   * onError, so nothing disappears without a word.
   */
  async close(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.flush(), deadline]);
    clearTimeout(timer);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    const left: Item[] = [];
    for (let item = this.queue.shift(); item; item = this.queue.shift()) left.push(item);
    if (left.length > 0) {
      this.counters.failed += left.length;
      this.counters.queued = this.inFlight;
      this.options.onError(
        new FloorlineError(0, "undelivered", `${left.length} items were still undelivered when the client closed`),
        left,
      );
    }
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
    this.inFlight = batch.length;
    return batch;
  }

  private async exportBatch(batch: Item[]): Promise<void> {
    let attempt = 0;
    let pending = batch;
    while (pending.length > 0) {
      if (this.closed && attempt > 0) {
        this.refuse(
          new FloorlineError(0, "undelivered", "the client closed while this batch was being retried"),
          pending,
        );
        break;
      }
      const kind = (pending[0] as Item).kind;
      const { path, batchKey } = ENDPOINT[kind];
      const body = batchKey ? { [batchKey]: pending.map((i) => i.body) } : (pending[0] as Item).body;
      try {
        const answer = await this.transport.request("POST", path, body);
        this.counters.sent += pending.length;
        this.report(kind, answer, batchKey);
        pending = [];
      } catch (error) {
        const failure = error instanceof FloorlineError ? error : FloorlineError.network(error);
        if (failure.retryable && !this.closed) {
          attempt++;
          this.counters.retried += pending.length;
          await this.sleep(this.backoff(attempt, failure.retryAfterMs));
          continue;
        }
        const bad = batchKey && failure.status === 422 ? badIndices(failure, batchKey) : new Set<number>();
        if (bad.size === 0 || bad.size === pending.length) {
          this.refuse(failure, pending);
          pending = [];
        } else {
          // All-or-nothing on the server: the items it named are refused, the rest go again.
          this.refuse(
            failure,
            pending.filter((_, i) => bad.has(i)),
          );
          pending = pending.filter((_, i) => !bad.has(i));
        }
      }
    }
    this.inFlight = 0;
    this.counters.queued = this.queue.length;
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

  private refuse(error: FloorlineError, items: Item[]): void {
    this.counters.failed += items.length;
    try {
      this.options.onError(error, items);
    } catch {
      // A throwing callback must not stop delivery of everything behind it.
    }
  }

  private report(kind: ItemKind, answer: unknown, batchKey: string | undefined): void {
    const onResult = this.options.onResult;
    if (!onResult || typeof answer !== "object" || answer === null) return;
    const results = batchKey ? (answer as { results?: unknown }).results : [answer];
    if (!Array.isArray(results)) return;
    for (const result of results) if (typeof result === "object" && result !== null) onResult(kind, result);
  }

  /** Exponential with full jitter, never sooner than the server's Retry-After. */
  private backoff(attempt: number, retryAfterMs: number | null): number {
    const ceiling = Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** (attempt - 1));
    const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
    return retryAfterMs === null ? jittered : Math.max(retryAfterMs, jittered);
  }
}
