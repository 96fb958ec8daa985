// One worker thread per server process for a part of each large evaluate batch (halves.ts). Started on the first large batch, which does not wait for
// it; until it is up, while it is busy and whenever it fails, batches are evaluated whole on
// the request's own thread, so the worker never changes an answer or loses one.
import "server-only";
import { Worker } from "node:worker_threads";
import type { BatchAnswer } from "./evaluate";
import type { OtherThread } from "./halves";
import type { HalfReply, HalfRequest } from "./worker";

// A worker that keeps failing to start (no bundle for it, say) is not tried forever.
const MAX_STARTS = 3;
// Halves queued on the worker at most: past them the worker is busy, and a batch is quicker
// evaluated whole on its own thread than queued behind others.
const MAX_WAITING = 2;
// A half takes tens of milliseconds and waits behind at most MAX_WAITING others: a worker
// silent this long is stuck, and is stopped; its batches are evaluated here.
const HALF_TIMEOUT_MS = 5_000;

interface Waiting {
  answer(answer: BatchAnswer | null): void;
  timer: NodeJS.Timeout;
}

interface ThreadState {
  worker: Worker | null;
  online: boolean;
  starts: number;
  nextId: number;
  waiting: Map<number, Waiting>;
}

// On globalThis: a bundled server can load this module more than once, and one worker is enough.
const globalForThread = globalThis as unknown as { floorlineEvaluateThread?: ThreadState };
globalForThread.floorlineEvaluateThread ??= { worker: null, online: false, starts: 0, nextId: 0, waiting: new Map() };
const state: ThreadState = globalForThread.floorlineEvaluateThread;

function stopped(worker: Worker): void {
  if (state.worker !== worker) return;
  state.worker = null;
  state.online = false;
  for (const { answer, timer } of state.waiting.values()) {
    clearTimeout(timer);
    answer(null);
  }
  state.waiting.clear();
}

function start(): void {
  if (state.worker || state.starts >= MAX_STARTS) return;
  state.starts++;
  let worker: Worker;
  try {
    worker = new Worker(new URL("./worker.ts", import.meta.url));
  } catch {
    return;
  }
  state.worker = worker;
  // Never what keeps the process alive, nor what a shutdown waits for.
  worker.unref();
  worker.on("online", () => {
    if (state.worker === worker) state.online = true;
  });
  worker.on("message", (reply: HalfReply) => {
    const waiting = state.waiting.get(reply.id);
    if (!waiting) return;
    state.waiting.delete(reply.id);
    clearTimeout(waiting.timer);
    waiting.answer(
      reply.buffer
        ? { bytes: Buffer.from(reply.buffer, reply.offset, reply.length) as Buffer<ArrayBuffer>, items: reply.items }
        : null,
    );
  });
  worker.on("error", () => stopped(worker));
  worker.on("exit", () => stopped(worker));
}

/** The worker as a OtherThread: ready when it is running and not busy (asking starts it). */
export const evaluateOnThread: OtherThread = {
  ready() {
    if (state.worker && state.online) return state.waiting.size < MAX_WAITING;
    start();
    return false;
  },
  evaluate(half) {
    const worker = state.worker;
    if (!worker || !state.online) return Promise.resolve(null);
    const id = state.nextId++;
    return new Promise<BatchAnswer | null>((resolve) => {
      const timer = setTimeout(() => {
        if (!state.waiting.delete(id)) return;
        resolve(null);
        void worker.terminate();
      }, HALF_TIMEOUT_MS);
      timer.unref();
      state.waiting.set(id, { answer: resolve, timer });
      const request: HalfRequest = { id, body: half };
      try {
        worker.postMessage(request, [half.buffer]);
      } catch {
        state.waiting.delete(id);
        clearTimeout(timer);
        resolve(null);
      }
    });
  },
};
