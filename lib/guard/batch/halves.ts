// A large evaluate batch in two parts, one evaluated elsewhere (a worker thread) while this
// thread evaluates the other, so that a second core shortens the byte path. ArrivingBatch
// sends the first part off while the body is still arriving; evaluateInHalves cuts a whole
// body in halves. The answer is exactly evaluateBatchBytes's for
// the whole body, or the whole body goes through evaluateBatchBytes: a cut anywhere but
// between two items makes a part that is not a plain batch, and then nothing of the parts is
// used.
import { Buffer } from "node:buffer";
import { MAX_EVALUATE_BATCH } from "../../schemas/guard";
import { type BatchAnswer, evaluateBatch, evaluateBatchBytes } from "./evaluate";

/** Below this, sending half a batch to another thread costs more than it saves. */
const MIN_SPLIT_BYTES = 256 * 1024;

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
  return [first, itemsAfter(bytes, at)];
}

/** `[` and the items after the cut at `at` (the end of an item, `}},`), in a buffer of its own. */
function itemsAfter(bytes: Buffer, at: number): Buffer<ArrayBuffer> {
  const rest = Buffer.allocUnsafeSlow(bytes.byteLength - at - 2);
  rest[0] = OPEN_BRACKET;
  bytes.copy(rest, 1, at + 3);
  return rest;
}

/** The two halves' answers as the whole batch's: `[a…]` and `[b…]` make `[a…,b…]`. */
function joinAnswers(first: Buffer, second: Buffer): Buffer<ArrayBuffer> {
  const joined = Buffer.allocUnsafe(first.byteLength + second.byteLength - 1);
  first.copy(joined, 0, 0, first.byteLength - 1);
  joined[first.byteLength - 1] = 0x2c;
  second.copy(joined, first.byteLength, 1);
  return joined;
}

/** Where part of a batch is evaluated while this thread does the rest (a worker thread). */
export interface OtherThread {
  /** Whether it can take a part now; when false, the batch is evaluated whole here. */
  ready(): boolean;
  /** The part's answer; null when it cannot give one (the batch is then evaluated whole here). */
  evaluate(half: Buffer<ArrayBuffer>): Promise<BatchAnswer | null>;
}

/** A plain batch's answer, and whether its halves were evaluated at once. */
export interface HalvesAnswer {
  bytes: Buffer<ArrayBuffer>;
  split: boolean;
}

/**
 * Where the items received so far are cut off for the other thread, as a share of the body:
 * a little over half, as that thread starts before the body is whole and this one still has
 * the rest to receive, copy and join.
 */
const FIRST_PART_SHARE = 0.55;

/**
 * A batch evaluated as it arrives: once about half of its declared length is in, the items
 * received so far go to the other thread, which evaluates them while this one receives the
 * rest; the rest is evaluated here once the body
 * is whole. The answer is exactly evaluateBatchBytes's for the whole body, as with
 * evaluateInHalves, which it falls back to when the body has no declared length, is small, or
 * the other thread is not ready when the first part is in.
 */
export class ArrivingBatch {
  private chunks: Uint8Array[] = [];
  private received = 0;
  private watching: boolean;
  private first: { cut: number; answer: Promise<BatchAnswer | null> } | null = null;

  constructor(
    private readonly declaredLength: number,
    private readonly second: OtherThread,
    private readonly minSplitBytes = MIN_SPLIT_BYTES,
  ) {
    this.watching = Number.isSafeInteger(declaredLength) && declaredLength >= minSplitBytes;
  }

  /** The body's next chunk, as it arrives. */
  take(chunk: Uint8Array): void {
    if (!this.watching) return;
    this.chunks.push(chunk);
    this.received += chunk.byteLength;
    if (this.received < this.declaredLength * FIRST_PART_SHARE) return;
    this.watching = false;
    const chunks = this.chunks;
    this.chunks = [];
    // Called as the body is read: whatever happens here, the reading goes on, and the batch is
    // then evaluated as if this part had never been sent.
    try {
      if (this.second.ready()) this.sendFirstPart(chunks);
    } catch {
      this.first = null;
    }
  }

  private sendFirstPart(chunks: readonly Uint8Array[]): void {
    // A buffer of its own, so that it can be moved to the other thread.
    const received = Buffer.allocUnsafeSlow(this.received);
    let offset = 0;
    for (const chunk of chunks) {
      received.set(chunk, offset);
      offset += chunk.byteLength;
    }
    // Chunks can be large (a busy thread reads what has piled up): cut near the share, not at
    // the end of what is in, or the other thread would get the whole batch.
    let at = received.indexOf(ITEM_END, Math.floor(this.declaredLength * FIRST_PART_SHARE));
    if (at < 0) at = received.lastIndexOf(ITEM_END);
    if (at < 0) return;
    received[at + 2] = CLOSE_BRACKET;
    this.first = { cut: at, answer: this.second.evaluate(received.subarray(0, at + 3)).catch(() => null) };
  }

  /** The answer for the whole body (every chunk taken), or null where evaluateBatchBytes is null. */
  async finish(body: Uint8Array): Promise<HalvesAnswer | null> {
    this.watching = false;
    this.chunks = [];
    const first = this.first;
    if (!first) return evaluateInHalves(body, this.second, this.minSplitBytes);
    // The rest is read where it lies: after the cut's comma, as a batch of its own.
    const b = evaluateBatch(body, MAX_EVALUATE_BATCH, first.cut + ITEM_END.byteLength);
    return joinHalves(body, await first.answer, b);
  }
}

/** The halves' answers as the whole body's, or the whole body evaluated here when either fails. */
function joinHalves(body: Uint8Array, a: BatchAnswer | null, b: BatchAnswer | null): HalvesAnswer | null {
  if (a === null || b === null || a.items + b.items > MAX_EVALUATE_BATCH) {
    const bytes = evaluateBatchBytes(body);
    return bytes && { bytes, split: false };
  }
  return { bytes: joinAnswers(a.bytes, b.bytes), split: true };
}

/**
 * evaluateBatchBytes(body), with the second half of a batch of at least `minSplitBytes`
 * evaluated by `second` at the same time as this thread evaluates the first.
 */
export async function evaluateInHalves(
  body: Uint8Array,
  second: OtherThread,
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
  return joinHalves(body, a, await pending);
}
