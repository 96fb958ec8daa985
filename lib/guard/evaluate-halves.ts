// A large evaluate batch in two halves, the second evaluated elsewhere (a worker thread) while
// this thread evaluates the first: on a machine with a second core the byte path takes about
// half as long (the request as a whole about a quarter less, bench:evaluate). The answer is exactly evaluateBatchBytes's for the whole body, or the
// whole body goes through evaluateBatchBytes: a cut anywhere but between two items makes a
// half that is not a plain batch, and then nothing of the halves is used.
import { Buffer } from "node:buffer";
import { MAX_EVALUATE_BATCH } from "../schemas/guard";
import { type BatchAnswer, evaluateBatch, evaluateBatchBytes } from "./evaluate-batch";

/** Below this, sending half a batch to another thread costs more than it saves. */
export const MIN_SPLIT_BYTES = 256 * 1024;

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
// The end of one item and the comma before the next: `…}},{"pass":…`. An item is an object of
// two objects, so it ends with two closing braces whichever comes last.
const ITEM_END = Buffer.from("}},", "latin1");

/**
 * The body cut at the first item boundary past its middle, as two batches: `[` first items `]`
 * and `[` the rest, each in a buffer of its own (the second can be moved to another thread).
 * Null when the body has no such place. The cut is only a guess: evaluateBatch says whether
 * each half is a batch.
 */
export function splitBatch(body: Uint8Array): [Buffer<ArrayBuffer>, Buffer<ArrayBuffer>] | null {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const at = bytes.indexOf(ITEM_END, body.byteLength >> 1);
  if (at < 0) return null;
  const first = Buffer.allocUnsafeSlow(at + 3);
  bytes.copy(first, 0, 0, at + 2);
  first[at + 2] = CLOSE_BRACKET;
  const second = Buffer.allocUnsafeSlow(body.byteLength - at - 2);
  second[0] = OPEN_BRACKET;
  bytes.copy(second, 1, at + 3);
  return [first, second];
}

/** The two halves' answers as the whole batch's: `[a…]` and `[b…]` make `[a…,b…]`. */
function joinAnswers(first: Buffer, second: Buffer): Buffer<ArrayBuffer> {
  const joined = Buffer.allocUnsafe(first.byteLength + second.byteLength - 1);
  first.copy(joined, 0, 0, first.byteLength - 1);
  joined[first.byteLength - 1] = 0x2c;
  second.copy(joined, first.byteLength, 1);
  return joined;
}

/** Where a batch's second half is evaluated (a worker thread). */
export interface SecondHalf {
  /** Whether it can take a half now; when false, the batch is evaluated whole here. */
  ready(): boolean;
  /** The half's answer; null when it cannot give one (the batch is then evaluated whole here). */
  evaluate(half: Buffer<ArrayBuffer>): Promise<BatchAnswer | null>;
}

/** A plain batch's answer, and whether its halves were evaluated at once. */
export interface HalvesAnswer {
  bytes: Buffer<ArrayBuffer>;
  split: boolean;
}

/**
 * evaluateBatchBytes(body), with the second half of a batch of at least `minSplitBytes`
 * evaluated by `second` at the same time as this thread evaluates the first.
 */
export async function evaluateInHalves(
  body: Uint8Array,
  second: SecondHalf,
  minSplitBytes = MIN_SPLIT_BYTES,
): Promise<HalvesAnswer | null> {
  const whole = () => {
    const bytes = evaluateBatchBytes(body);
    return bytes && { bytes, split: false };
  };
  const halves = body.byteLength >= minSplitBytes && second.ready() ? splitBatch(body) : null;
  if (!halves) return whole();
  const [firstHalf, secondHalf] = halves;
  const pending = second.evaluate(secondHalf).catch(() => null);
  const a = evaluateBatch(firstHalf);
  const b = await pending;
  if (a === null || b === null || a.items + b.items > MAX_EVALUATE_BATCH) return whole();
  return { bytes: joinAnswers(a.bytes, b.bytes), split: true };
}
