// JSON's tokens read straight from a body's bytes, for the evaluate byte path's reader
// (reader.ts): whitespace, punctuation, strings, booleans and numbers, without JSON.parse and
// without making a string where the caller does not need one. The bytes are ASCII (checked
// before reading), so a byte is a character. Anything this scanner is not sure of throws
// NOT_PLAIN, and the whole body then goes the general way.
import type { Buffer } from "node:buffer";
import type { Words } from "./words";

// Each module of the byte path defines the bytes it reads: a bundled server reaches imported
// bindings through getters on every use, and these are read for every byte of the body.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Thrown (never out of the byte path) when the body is not a plainly valid batch. */
export const NOT_PLAIN = new Error("not a plainly valid evaluate batch");

// Powers of ten a double holds exactly: an integer below 2^53 divided by one of them is
// correctly rounded, so it is the double JSON.parse reads from the same digits.
const EXACT_POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);
const MAX_EXACT_DIGITS = 15;

export class JsonScanner {
  pos = 0;
  /** Whether the last string read is printable ASCII without '"' or '\\', so JSON as it is. */
  plain = true;
  readonly view: DataView;

  constructor(readonly bytes: Buffer) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Skips JSON whitespace; the next byte (undefined past the end). */
  peek(): number | undefined {
    const bytes = this.bytes;
    let pos = this.pos;
    let c = bytes[pos];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++pos];
    this.pos = pos;
    return c;
  }

  expect(code: number): void {
    if (this.peek() !== code) throw NOT_PLAIN;
    this.pos++;
  }

  /** After a member: true when another follows, false at the object's end. */
  more(): boolean {
    const c = this.peek();
    this.pos++;
    if (c === COMMA) return true;
    if (c === CLOSE_BRACE) return false;
    throw NOT_PLAIN;
  }

  string(): string {
    if (this.peek() !== QUOTE) throw NOT_PLAIN;
    const bytes = this.bytes;
    const start = this.pos + 1;
    let pos = start;
    let escaped = false;
    for (let c = bytes[pos]; c !== QUOTE; c = bytes[++pos]) {
      if (c === BACKSLASH) {
        escaped = true;
        pos++;
      } else if (c === undefined || c < 0x20) {
        // A raw control character is not JSON.
        throw NOT_PLAIN;
      }
    }
    this.pos = pos + 1;
    this.plain = !escaped;
    // The body is ASCII, so its bytes are its characters.
    return escaped ? this.unescape(start - 1, pos + 1) : bytes.toString("latin1", start, pos);
  }

  unescape(start: number, end: number): string {
    try {
      return JSON.parse(this.bytes.toString("latin1", start, end)) as string;
    } catch {
      throw NOT_PLAIN;
    }
  }

  /**
   * Reads a string of min..max characters that is JSON and Python's JSON as it is (printable
   * ASCII, no escape, no DEL, which json.dumps escapes) without making a string of it: where
   * its bytes start (they end before the closing quote, just before `pos`). -1, moving nowhere,
   * for any other string.
   */
  rawText(min: number, max: number): number {
    if (this.peek() !== QUOTE) throw NOT_PLAIN;
    const bytes = this.bytes;
    const start = this.pos + 1;
    let pos = start;
    for (let c = bytes[pos]; c !== QUOTE; c = bytes[++pos]) {
      if (c === BACKSLASH || c === 0x7f) return -1;
      if (c === undefined || c < 0x20) throw NOT_PLAIN;
    }
    if (pos - start < min || pos - start > max) throw NOT_PLAIN;
    this.pos = pos + 1;
    return start;
  }

  boolean(): boolean {
    const c = this.peek();
    const bytes = this.bytes;
    const pos = this.pos;
    if (c === 0x74 && bytes[pos + 1] === 0x72 && bytes[pos + 2] === 0x75 && bytes[pos + 3] === 0x65) {
      this.pos = pos + 4;
      return true;
    }
    if (
      c === 0x66 &&
      bytes[pos + 1] === 0x61 &&
      bytes[pos + 2] === 0x6c &&
      bytes[pos + 3] === 0x73 &&
      bytes[pos + 4] === 0x65
    ) {
      this.pos = pos + 5;
      return false;
    }
    throw NOT_PLAIN;
  }

  /** A JSON number without a minus sign (never plainly valid here: -0 goes the general way). */
  number(): number {
    this.peek();
    const bytes = this.bytes;
    let pos = this.pos;
    const start = pos;
    let c = bytes[pos] ?? -1;
    let mantissa = 0;
    let digits = 0;
    let scale = 0;
    if (c === ZERO) {
      c = bytes[++pos] ?? -1;
    } else if (c > ZERO && c <= NINE) {
      do {
        mantissa = mantissa * 10 + (c - ZERO);
        digits++;
        c = bytes[++pos] ?? -1;
      } while (c >= ZERO && c <= NINE);
    } else {
      throw NOT_PLAIN;
    }
    if (c === DOT) {
      c = bytes[++pos] ?? -1;
      if (!(c >= ZERO && c <= NINE)) throw NOT_PLAIN;
      do {
        mantissa = mantissa * 10 + (c - ZERO);
        digits++;
        scale++;
        c = bytes[++pos] ?? -1;
      } while (c >= ZERO && c <= NINE);
    }
    this.pos = pos;
    if (c === 0x65 || c === 0x45 || digits > MAX_EXACT_DIGITS) return this.spelledNumber(start);
    return scale === 0 ? mantissa : mantissa / (EXACT_POWERS_OF_TEN[scale] as number);
  }

  /** A number with an exponent or many digits, from `start`: as JSON.parse reads it. */
  spelledNumber(start: number): number {
    const bytes = this.bytes;
    let pos = this.pos;
    let c = bytes[pos] ?? -1;
    if (c === 0x65 || c === 0x45) {
      c = bytes[++pos] ?? -1;
      if (c === 0x2b || c === 0x2d) c = bytes[++pos] ?? -1;
      if (!(c >= ZERO && c <= NINE)) throw NOT_PLAIN;
      do c = bytes[++pos] ?? -1;
      while (c >= ZERO && c <= NINE);
    }
    this.pos = pos;
    return Number(bytes.toString("latin1", start, pos));
  }

  /** Whether `part` comes next, as it is; moves past it when it does. */
  text(part: Words): boolean {
    const pos = this.pos;
    const length = part.length;
    if (pos + length > this.bytes.length) return false;
    const view = this.view;
    const words = part.words;
    const last = words.length - 1;
    for (let k = 0; k < last; k++) if (view.getUint32(pos + 4 * k, true) !== words[k]) return false;
    if (view.getUint32(pos + length - 4, true) !== words[last]) return false;
    this.pos = pos + length;
    return true;
  }
}
