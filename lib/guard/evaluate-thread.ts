// One worker thread per server process for the second halves of large evaluate batches
// (lib/guard/evaluate-halves.ts). Started on the first large batch, which does not wait for
// it; until it is up, and whenever it fails, batches are evaluated whole on the request's own
// thread, so the worker only ever makes an answer sooner, never different or missing.
import "server-only";
import { Worker } from "node:worker_threads";
import type { BatchAnswer } from "./evaluate-batch";
import type { SecondHalf } from "./evaluate-halves";
import type { HalfReply, HalfRequest } from "./evaluate-worker";

// A worker that keeps failing to start (no bundle for it, say) is not tried forever.
const MAX_STARTS = 3;

interface ThreadState {
  worker: Worker | null;
  online: boolean;
  starts: number;
  nextId: number;
  waiting: Map<number, (answer: BatchAnswer | null) => void>;
}

// On globalThis: a bundled server can load this module more than once, and one worker is enough.
const globalForThread = globalThis as unknown as { floorlineEvaluateThread?: ThreadState };
globalForThread.floorlineEvaluateThread ??= { worker: null, online: false, starts: 0, nextId: 0, waiting: new Map() };
const state: ThreadState = globalForThread.floorlineEvaluateThread;

function stopped(worker: Worker): void {
  if (state.worker !== worker) return;
  state.worker = null;
  state.online = false;
  for (const answer of state.waiting.values()) answer(null);
  state.waiting.clear();
}

function start(): void {
  if (state.worker || state.starts >= MAX_STARTS) return;
  state.starts++;
  let worker: Worker;
  try {
    worker = new Worker(new URL("./evaluate-worker.ts", import.meta.url));
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
    const answer = state.waiting.get(reply.id);
    if (!answer) return;
    state.waiting.delete(reply.id);
    answer(
      reply.buffer
        ? { bytes: Buffer.from(reply.buffer, reply.offset, reply.length) as Buffer<ArrayBuffer>, items: reply.items }
        : null,
    );
  });
  worker.on("error", () => stopped(worker));
  worker.on("exit", () => stopped(worker));
}

/** The worker as a SecondHalf: not ready until it is running (asking starts it). */
export const evaluateOnThread: SecondHalf = {
  ready() {
    if (state.worker && state.online) return true;
    start();
    return false;
  },
  evaluate(half) {
    const worker = state.worker;
    if (!worker || !state.online) return Promise.resolve(null);
    const id = state.nextId++;
    return new Promise<BatchAnswer | null>((resolve) => {
      state.waiting.set(id, resolve);
      const request: HalfRequest = { id, body: half };
      try {
        worker.postMessage(request, [half.buffer]);
      } catch {
        state.waiting.delete(id);
        resolve(null);
      }
    });
  },
};
