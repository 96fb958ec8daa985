// Measurement off the request thread: a pool of worker threads (Piscina), one per core by
// default, each measurement with a time budget and each worker with a heap of its own. A content
// that takes too long, or too much memory, ends its worker (the pool starts another) and
// fails alone: its caller gets a MeasureFailure, the server and every other request go on.
// docs/measurement.md, "Off the request thread", says what an operator sees.
import "server-only";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { env } from "../env";
import { ApiError } from "../errors";
import { processSingleton } from "../process-singleton";
import { openSync, closeSync } from "node:fs";
import {
  type MeasureRun,
  type MeasureTask,
  type MeasureTaskResult,
  PROGRESS_BYTES,
  progressOf,
  threadCpuNs,
} from "./worker";

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
 * past it, the kept part is dropped before a measurement against a source it does not hold.
 * One source's analysis may take more (about 150 MB of the thread's heap for a 4 MiB log) and
 * stays while its passes come; many small chains share the bound, and analysing a small
 * source again costs little (a 4 KiB one about a millisecond). 96 MB cost the soak about 170 MB
 * more with two threads, with no difference in bench:ingest beyond its noise (docs/benchmarks.md).
 */
const KEEP_HEAP_MB = 32;
/** A worker's young generation: V8's default let each thread hold tens of MB more of garbage. */
const YOUNG_HEAP_MB = 8;
/**
 * How much lower than the server's a measurement thread's scheduling priority is: its nice
 * value, raised by Piscina (through @napi-rs/nice) as the thread starts. A thread measuring then
 * takes the CPU the request thread and the database leave, instead of contending with them for
 * it: with every core measuring at the server's priority, health answers waited past their
 * target (bench:measure-stall; figures on docs/benchmarks.md). Its budget counts only its CPU
 * time, so a wait for the CPU fails nothing. Linux only, where a nice value is a thread's own;
 * elsewhere `nice` would lower the whole server.
 */
const MEASURE_NICE = process.platform === "linux" ? 19 : 0;
/** Tasks waiting beyond the running ones; past it a request is told the server is busy. */
const QUEUE_PER_THREAD = 64;
const MIB = 1024 * 1024;

/**
 * How long one measurement may run: FLOORLINE_MEASURE_BUDGET_MS for a content of up to 1 MiB
 * (source included), and as much again per further MiB, so a budget is per byte. It is of the
 * thread's CPU time where the system tells it (Linux), else of the time since the thread took
 * the measurement: a thread measuring at a low priority may wait for the CPU while the machine
 * is busy, and a wait is no work.
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
    return new Piscina<MeasureRun, MeasureTaskResult[]>({
      // The start script and the tests run from the repository's root; the file is not bundled.
      filename: path.join(process.cwd(), "lib/measure/worker-entry.mjs"),
      minThreads: 0,
      maxThreads,
      // An idle pool holds no thread (and no analysis cache) for long.
      idleTimeout: 30_000,
      maxQueue: maxThreads * QUEUE_PER_THREAD,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: YOUNG_HEAP_MB },
      niceIncrement: MEASURE_NICE,
    });
  });

/** Measurements one run of the pool carries at most (lib/measure/worker.ts), and bytes of content and sources. */
const RUN_TASKS = 64;
const RUN_BYTES = MIB;
/** Runs per thread a batch is cut into at least, so the threads share the work evenly. */
const RUNS_PER_THREAD = 4;

const bytesOf = (task: MeasureTask) => task.content.length + (task.source?.length ?? 0);

/**
 * Measures the tasks as one run of a worker thread: each answer, or the MeasureFailure of a
 * measurement that could not finish. Each measurement has its own budget, from the moment the
 * thread starts it (a wait in the queue, or for the measurements before it, does not count);
 * one that runs past it, or past the thread's memory, ends the thread and fails alone: the
 * measurements before it and after it are run again, on another thread. Throws the busy
 * MeasureFailure when the queue is full, and any other error as it came.
 */
async function measureRun(tasks: readonly MeasureTask[]): Promise<(MeasureTaskResult | MeasureFailure)[]> {
  const budgets = tasks.map((task) => measureBudgetMs(bytesOf(task)));
  const sources: string[] = [];
  const sourceIndex = new Map<string, number>();
  const run: MeasureRun = {
    sources,
    tasks: tasks.map(({ source, ...task }) => {
      let index: number | null = null;
      if (source != null) {
        index = sourceIndex.get(source) ?? sources.push(source) - 1;
        sourceIndex.set(source, index);
      }
      return { keepHeapBytes: KEEP_HEAP_MB * MIB, ...task, source: index };
    }),
    progress: new SharedArrayBuffer(PROGRESS_BYTES),
  };
  const { started, startedAt, thread, cpuAt } = progressOf(run.progress);
  const abort = new AbortController();
  let over = -1;
  let timer: NodeJS.Timeout | undefined;
  // Wakes once per budget at most, not per measurement: the worker tells none of its progress.
  // A measurement past its budget in time is then asked its CPU time, which it cannot have
  // spent faster: what is left of the budget there is the least time it may still need.
  const watch = (ms: number) => {
    timer = setTimeout(() => {
      const count = Atomics.load(started, 0);
      if (count === 0) return watch(budgets[0] as number);
      const budget = budgets[count - 1] as number;
      const left = budget - (Date.now() - Number(Atomics.load(startedAt, 0)));
      if (left > 0) return watch(left);
      const cpuLeft = budget - cpuSpentMs(Atomics.load(thread, 0), Number(Atomics.load(cpuAt, 0)));
      // Read again: the measurement may have ended, and the next begun, while its time was read.
      if (Atomics.load(started, 0) !== count) return watch(0);
      if (cpuLeft > 0) return watch(Math.max(cpuLeft, MIN_RECHECK_MS));
      over = count - 1;
      abort.abort();
    }, ms);
  };
  watch(budgets[0] as number);
  try {
    return await pool().run(run, { signal: abort.signal });
  } catch (error) {
    const failed = over >= 0 ? over : Atomics.load(started, 0) - 1;
    const failure = failureOf(error, budgets[Math.max(0, failed)] as number);
    if (!(failure instanceof MeasureFailure) || failure.reason === "busy") throw failure;
    if (tasks.length === 1) return [failure];
    // A thread that failed before its first measurement says nothing of which failed: halve.
    const cut = failed < 0 ? tasks.length >> 1 : failed;
    const before = cut > 0 ? await measureRun(tasks.slice(0, cut)) : [];
    if (failed < 0) return [...before, ...(await measureRun(tasks.slice(cut)))];
    const after = failed + 1 < tasks.length ? await measureRun(tasks.slice(failed + 1)) : [];
    return [...before, failure, ...after];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Measures in a worker thread; throws MeasureFailure when the measurement cannot finish. The
 * budget runs from the moment a thread takes the task: a wait in the queue does not count.
 */
export async function measureOffThread(task: MeasureTask): Promise<MeasureTaskResult> {
  const [outcome] = await measureRun([task]);
  if (outcome instanceof MeasureFailure || outcome === undefined) throw outcome;
  return outcome;
}

/** The least wait before a measurement's CPU time is asked again. */
const MIN_RECHECK_MS = 10;

/**
 * The CPU time thread `id` of this process has spent since it had spent `fromNs`, in ms; where
 * it cannot be read (no /proc, the thread gone), Infinity: the budget then runs as time does.
 */
function cpuSpentMs(id: number, fromNs: number): number {
  if (id <= 0 || fromNs < 0) return Number.POSITIVE_INFINITY;
  let fd: number;
  try {
    fd = openSync(`/proc/self/task/${id}/schedstat`, "r");
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  try {
    const now = threadCpuNs(fd);
    return now < 0 ? Number.POSITIVE_INFINITY : (now - fromNs) / 1e6;
  } finally {
    closeSync(fd);
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

/**
 * For the ingest (and re-measuring), a batch's measurements, in the tasks' order: each its
 * answer, or "failed" when it ran past its budget or its memory (the pass is stored unmeasured,
 * saying why); a full queue is the server being busy (503, retried). They go to the threads in
 * runs of neighbouring tasks (a chain's passes share a run, and its source crosses once), a few
 * runs per thread, one run per thread at a time.
 */
export async function measureAllForIngest(tasks: readonly MeasureTask[]): Promise<(MeasureTaskResult | "failed")[]> {
  const perRun = Math.min(RUN_TASKS, Math.ceil(tasks.length / (threads() * RUNS_PER_THREAD)));
  const runs: { from: number; tasks: MeasureTask[] }[] = [];
  let bytes = 0;
  for (const [i, task] of tasks.entries()) {
    const last = runs.at(-1);
    if (!last || last.tasks.length >= perRun || bytes + bytesOf(task) > RUN_BYTES) {
      runs.push({ from: i, tasks: [task] });
      bytes = bytesOf(task);
    } else {
      last.tasks.push(task);
      bytes += bytesOf(task);
    }
  }
  const results: (MeasureTaskResult | "failed")[] = new Array(tasks.length);
  await forEachLimited(runs, threads(), async (run) => {
    let outcomes: (MeasureTaskResult | MeasureFailure)[];
    try {
      outcomes = await measureRun(run.tasks);
    } catch (error) {
      if (error instanceof MeasureFailure && error.reason === "busy") throw measurementBusy();
      throw error;
    }
    for (const [k, outcome] of outcomes.entries())
      results[run.from + k] = outcome instanceof MeasureFailure ? "failed" : outcome;
  });
  return results;
}

/** Runs `work` on every item, at most `limit` at a time; rejects with the first failure. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
