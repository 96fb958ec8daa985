// Measurements as tasks of the measurement pool (lib/measure/pool.ts), run in a worker thread.
// One task carries a run of measurements, so a batch of receipts crosses the thread a few times,
// not once per receipt: each crossing waits for both threads to be scheduled, which on a busy
// machine costs more than the measurement. The originals a content's markers name cross the
// thread as a map, not a function: a key the map does not answer is reported back, and the
// caller looks it up and asks again (the ingest reads the store only for markers a content names).
import { openSync, readlinkSync, readSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { clearMeasureCache, type DetailedMeasurement, keepsSource, type MeasureFormat, measureDetailed } from "./index";
import { type FactStates, listSourceFacts, measureWithFacts, type SourceFacts } from "./fact-ledger";

export interface MeasureTask {
  content: string;
  source?: string | null;
  format?: MeasureFormat;
  requiredFields?: readonly string[];
  /** Texts by marker key (lower case), or null where the store holds none (or several). */
  originals?: ReadonlyMap<string, string | null>;
  /** An original a marker names by any prefix of its hash (the originals page's diff). */
  prefixOf?: { hash: string; text: string };
  /**
   * The thread's heap (and ArrayBuffers) in use past which the lexicon and source analyses kept
   * from earlier measurements are dropped before this one, unless they hold its source's
   * analysis (what is kept is bounded in bytes, not only in entries). Absent: nothing is
   * dropped for it.
   */
  keepHeapBytes?: number;
  /** For the facts ledger (fact-ledger.ts): each listed fact's state, with the list itself when "list". */
  facts?: "states" | "list";
}

export interface MeasureTaskResult {
  measurement: DetailedMeasurement;
  /** Marker keys the content names that `originals` did not answer: look them up and ask again. */
  unknownMarkers: string[];
  /** The kept lexicon and analyses were dropped before this measurement (see keepHeapBytes). */
  cacheDropped: boolean;
  /** What `facts` asked for, when the task had a source. */
  facts?: FactStates & { list?: SourceFacts };
}

/** Where a run has got to, in memory both threads see: the caller's budget reads it. */
interface MeasureProgress {
  /** How many of the run's measurements have started: the one under way is the last. */
  started: Int32Array;
  /** When the last started, in ms since the epoch. */
  startedAt: BigInt64Array;
  /** The thread's id in the system (Linux), for the caller to read its CPU time; 0 unknown. */
  thread: Int32Array;
  /** The thread's CPU time, in ns, when the last started; -1 unknown. */
  cpuAt: BigInt64Array;
}

/** Bytes of a run's progress (see progressOf). */
export const PROGRESS_BYTES = 24;

/** Views of a run's progress: `buffer` is made by the caller (PROGRESS_BYTES, zeroed) and shared with the worker. */
export function progressOf(buffer: SharedArrayBuffer): MeasureProgress {
  return {
    startedAt: new BigInt64Array(buffer, 0, 1),
    started: new Int32Array(buffer, 8, 1),
    thread: new Int32Array(buffer, 12, 1),
    cpuAt: new BigInt64Array(buffer, 16, 1),
  };
}

/**
 * The CPU time a thread has run, in ns, from its schedstat in /proc (Linux: the first field),
 * or -1 where there is none. A measurement's budget is of this time: a thread at a low priority
 * (pool.ts) may wait for the CPU on a busy machine, and that wait is no work of its own.
 */
export function threadCpuNs(fd: number, bytes = Buffer.alloc(64)): number {
  try {
    const n = readSync(fd, bytes, 0, bytes.length, 0);
    const ns = Number.parseInt(bytes.toString("latin1", 0, n), 10);
    return Number.isFinite(ns) ? ns : -1;
  } catch {
    return -1;
  }
}

/** This thread's id and its schedstat, opened at its first run (in the worker, not in the pool's thread); null off Linux. */
let ownClock: { id: number; fd: number; bytes: Buffer<ArrayBuffer> } | null | undefined;

function clock(): { id: number; fd: number; bytes: Buffer<ArrayBuffer> } | null {
  if (ownClock !== undefined) return ownClock;
  try {
    const id = Number(readlinkSync("/proc/thread-self").split("/").pop());
    const fd = openSync("/proc/thread-self/schedstat", "r");
    ownClock = Number.isInteger(id) && id > 0 && threadCpuNs(fd) >= 0 ? { id, fd, bytes: Buffer.alloc(64) } : null;
  } catch {
    ownClock = null;
  }
  return ownClock;
}

/** A run of measurements; each task's `source` is an index into `sources`, so a chain's source crosses once. */
export interface MeasureRun {
  sources: string[];
  tasks: (Omit<MeasureTask, "source"> & { source: number | null })[];
  /** Told which task is under way (see progressOf). */
  progress: SharedArrayBuffer;
}

/** What the thread had in use when it last dropped what it keeps, or 0 since it fell below the bound. */
let droppedAt = 0;

/**
 * The bytes in use when what the thread keeps is past `keep`, else null: its heap in use and its
 * ArrayBuffers (the typed arrays of the lexicon and the analyses live outside the heap). Both
 * count garbage not yet collected, so a drop may come early, never late; and after a drop, the
 * next waits until they have grown by half the bound again, rather than dropping before every
 * measurement until V8 collects.
 */
function overKept(keep: number): number | null {
  const heap = getHeapStatistics();
  const inUse = heap.used_heap_size + heap.external_memory;
  if (inUse <= keep) {
    droppedAt = 0;
    return null;
  }
  return inUse > droppedAt + keep / 2 ? inUse : null;
}

/**
 * Drops what the thread keeps when it is past `keep`, unless it holds the analysis of the
 * source this measurement needs: checked before a measurement, so that one source larger than
 * the bound (a 4 MiB log's analysis takes more than 100 MB) is analysed once for all its passes,
 * not after each. What is kept is then at most 1.5 times the bound and one source's analysis.
 */
function dropIfOverKept(keep: number, source: string | null | undefined, format: MeasureFormat | undefined): boolean {
  // A measurement without a source adds nothing that stays (its tokens go to the zone).
  if (source == null) return false;
  const inUse = overKept(keep);
  if (inUse === null || keepsSource(source, format)) return false;
  clearMeasureCache();
  droppedAt = inUse;
  return true;
}

export default function measureRun(run: MeasureRun): MeasureTaskResult[] {
  const { started, startedAt, thread, cpuAt } = progressOf(run.progress);
  const own = clock();
  Atomics.store(thread, 0, own?.id ?? 0);
  return run.tasks.map((task, i) => {
    // The times first: a reader that sees this count reads this start or a later one.
    Atomics.store(startedAt, 0, BigInt(Date.now()));
    Atomics.store(cpuAt, 0, BigInt(own ? threadCpuNs(own.fd, own.bytes) : -1));
    Atomics.store(started, 0, i + 1);
    return measureTask({ ...task, source: task.source === null ? null : run.sources[task.source] });
  });
}

function measureTask(task: MeasureTask): MeasureTaskResult {
  const unknown = new Set<string>();
  const { originals, prefixOf } = task;
  const options = {
    source: task.source,
    format: task.format,
    requiredFields: task.requiredFields,
    originals: (key: string) => {
      if (prefixOf?.hash.startsWith(key)) return prefixOf.text;
      const text = originals?.get(key);
      if (text === undefined) unknown.add(key);
      return text ?? undefined;
    },
  };
  const source = task.source;
  const cacheDropped = task.keepHeapBytes !== undefined && dropIfOverKept(task.keepHeapBytes, source, task.format);
  let measurement: DetailedMeasurement;
  let facts: (FactStates & { list?: SourceFacts }) | undefined;
  if (task.facts && source != null) {
    // The ledger reads the measurement's own reading of the content.
    const measured = measureWithFacts(task.content, { ...options, source });
    measurement = measured.measurement;
    facts = { ...measured.facts, ...(task.facts === "list" ? { list: listSourceFacts(source, task.format) } : {}) };
  } else measurement = measureDetailed(task.content, options);
  return { measurement, unknownMarkers: [...unknown], cacheDropped, ...(facts ? { facts } : {}) };
}
