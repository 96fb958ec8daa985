// The worker thread of thread.ts: evaluates a part of a large evaluate batch (halves.ts) and
// hands the answer's bytes back.
import { parentPort } from "node:worker_threads";
import { evaluateBatch } from "./evaluate";

export interface HalfRequest {
  id: number;
  body: Uint8Array;
}

/** The answer's bytes are `buffer[offset, offset + length)`; no buffer when the half is not a plain batch. */
export interface HalfReply {
  id: number;
  buffer: ArrayBuffer | null;
  offset: number;
  length: number;
  items: number;
}

const port = parentPort;
port?.on("message", ({ id, body }: HalfRequest) => {
  let reply: HalfReply = { id, buffer: null, offset: 0, length: 0, items: 0 };
  try {
    const answer = evaluateBatch(body);
    if (answer) {
      const { bytes, items } = answer;
      reply = { id, buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.byteLength, items };
    }
  } catch {
    // Answered as "not a plain batch": the main thread evaluates the whole body itself.
  }
  try {
    port.postMessage(reply, reply.buffer ? [reply.buffer] : []);
  } catch {
    // A buffer that cannot be moved is copied instead.
    port.postMessage(reply);
  }
});
