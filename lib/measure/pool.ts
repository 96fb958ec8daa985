// Measurement off the request thread: a pool of worker threads (Piscina), one per core by
// default, each task with a time budget and each worker with a heap of its own. A content
// that takes too long, or too much memory, ends its worker (the pool starts another) and
// fails alone: its caller gets a MeasureFailure, the server and every other request go on.
// docs/measurement.md, "Off the request thread", says what an operator sees.
import "server-only";
import { availableParallelism } from "node:os";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import { env } from "../env";
import { ApiError } from "../errors";
import { processSingleton } from "../process-singleton";
import type { MeasureTask, MeasureTaskResult } from "./worker";

export type { MeasureTask, MeasureTaskResult } from "./worker";

/** Why a measurement gave no answer. */
type MeasureFailureReason = "budget" | "memory" | "busy";

export class MeasureFailure extends Error {
  constructor(
    readonly reason: MeasureFailureReason,
    message: string,
  ) {
    super(message);
    this.name = "MeasureFailure";
  }
}

/** A worker's heap: far above any content at the size limit, far below the machine. */
const WORKER_HEAP_MB = 1024;
/**
 * What a worker keeps between measurements (the lexicon, source analyses), bounded in bytes:
 * after a measurement that leaves more of its heap in use, the kept part is dropped.
 */
const KEEP_HEAP_MB = 192;
/** Tasks waiting beyond the running ones; past it a request is told the server is busy. */
const QUEUE_PER_THREAD = 64;
const MIB = 1024 * 1024;

/**
 * How long one measurement may run: FLOORLINE_MEASURE_BUDGET_MS for a content of up to 1 MiB
 * (source included), and as much again per further MiB, so a budget is per byte.
 */
function measureBudgetMs(bytes: number): number {
  const base = env("FLOORLINE_MEASURE_BUDGET_MS") ?? 20_000;
  return Math.round(base * Math.max(1, bytes / MIB));
}

function threads(): number {
  return env("FLOORLINE_MEASURE_THREADS") ?? Math.max(1, availableParallelism());
}

const pool = () =>
  processSingleton("measure-pool", () => {
    const maxThreads = threads();
    return new Piscina<MeasureTask, MeasureTaskResult>({
      // The start script and the tests run from the repository's root; the file is not bundled.
      filename: path.join(process.cwd(), "lib/measure/worker-entry.mjs"),
      minThreads: 0,
      maxThreads,
      // An idle pool holds no thread (and no analysis cache) for long.
      idleTimeout: 30_000,
      maxQueue: maxThreads * QUEUE_PER_THREAD,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
  });

/**
 * Measures in a worker thread; throws MeasureFailure when the measurement cannot finish. The
 * budget runs from the moment a thread takes the task: a wait in the queue does not count.
 */
export async function measureOffThread(task: Omit<MeasureTask, "started">): Promise<MeasureTaskResult> {
  const bytes = task.content.length + (task.source?.length ?? 0);
  const budget = measureBudgetMs(bytes);
  const { port1: started, port2: tellStarted } = new MessageChannel();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  started.once("message", () => {
    timer = setTimeout(() => abort.abort(), budget);
  });
  try {
    return await pool().run(
      { keepHeapBytes: KEEP_HEAP_MB * MIB, ...task, started: tellStarted },
      { signal: abort.signal, transferList: [tellStarted] },
    );
  } catch (error) {
    throw failureOf(error, budget);
  } finally {
    clearTimeout(timer);
    started.close();
  }
}

function failureOf(error: unknown, budget: number): unknown {
  const name = (error as { name?: string } | null)?.name;
  const code = (error as { code?: string } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (name === "AbortError" || name === "TimeoutError")
    return new MeasureFailure("budget", `the measurement ran past its budget of ${budget} ms`);
  if (code === "ERR_WORKER_OUT_OF_MEMORY" || /out of memory|memory limit/i.test(message))
    return new MeasureFailure("memory", `the measurement ran past its memory of ${WORKER_HEAP_MB} MB`);
  if (/queue is at limit/i.test(message))
    return new MeasureFailure("busy", "every measurement thread is busy and the queue is full");
  return error;
}

/** The answer while every thread is busy and the queue is full: 503, retried shortly. */
export function measurementBusy(): ApiError {
  return new ApiError("server_busy", "Every measurement thread is busy; try again shortly.", {
    headers: { "Retry-After": "1" },
  });
}

/** Measurements one caller keeps in flight at once: one per thread, so a batch cannot fill the queue. */
export function measureConcurrency(): number {
  return threads();
}

/**
 * For the ingest: the measurement, or "failed" when it ran past its budget or its memory (the
 * pass is stored unmeasured, saying why). A full queue is the server being busy: 503, retried.
 */
export async function measureForIngest(task: MeasureTask): Promise<MeasureTaskResult | "failed"> {
  try {
    return await measureOffThread(task);
  } catch (error) {
    if (!(error instanceof MeasureFailure)) throw error;
    if (error.reason === "busy") throw measurementBusy();
    return "failed";
  }
}

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
