// The evaluate byte path's answer, written as bytes: ASCII text, fixed text and spans of the
// body as words, and numbers as digits without making their strings.
import { Buffer } from "node:buffer";
import { pyFormatFixed } from "../python";
import type { Words } from "./words";

const DOT = 0x2e;
const ZERO = 0x30;

/** The answer's bytes, grown as needed; every string written to it is ASCII unless said. */
export class AnswerWriter {
  length = 0;
  private view: DataView;

  // Sized for the usual answer, which is smaller than its batch, so it is rarely grown.
  constructor(public bytes: Buffer<ArrayBuffer>) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reserve(room: number): void {
    if (this.length + room <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + room));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }

  ascii(text: string): void {
    this.reserve(text.length);
    this.length += this.bytes.write(text, this.length, "latin1");
  }

  byte(code: number): void {
    this.reserve(1);
    this.bytes[this.length++] = code;
  }

  // Fixed text and spans of the body are copied four bytes at a time (see words.ts).

  /** A fixed ASCII text. */
  fixed(part: Words): void {
    this.reserve(part.length);
    const view = this.view;
    const at = this.length;
    const words = part.words;
    if (part.length < 4) {
      for (let k = 0; k < part.length; k++) view.setUint8(at + k, words[k] as number);
      this.length = at + part.length;
      return;
    }
    const last = words.length - 1;
    for (let k = 0; k < last; k++) view.setUint32(at + 4 * k, words[k] as number, true);
    view.setUint32(at + part.length - 4, words[last] as number, true);
    this.length = at + part.length;
  }

  /** The bytes of `from` in [start, end), known to be ASCII. */
  span(from: DataView, start: number, end: number): void {
    const n = end - start;
    this.reserve(n);
    const view = this.view;
    const at = this.length;
    if (n < 4) {
      for (let i = 0; i < n; i++) view.setUint8(at + i, from.getUint8(start + i));
    } else {
      for (let k = 0; k < n - 4; k += 4) view.setUint32(at + k, from.getUint32(start + k, true), true);
      view.setUint32(at + n - 4, from.getUint32(end - 4, true), true);
    }
    this.length = at + n;
  }

  /** An ASCII string. A loop, not write(): its call into C++ costs more than a short string. */
  chars(text: string): void {
    const n = text.length;
    this.reserve(n);
    const out = this.bytes;
    let at = this.length;
    for (let i = 0; i < n; i++) out[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /**
   * pyFormatFixed(value, digits) for a value in [0, 1], written without making its string.
   * value * 10^digits (below 1,024) is within 2^-43 of the exact product, so a fraction at
   * least 1e-9 from a half rounds as the exact one does; nearer (a tie, or nearly a tie),
   * pyFormatFixed decides.
   */
  fixedPoint(value: number, digits: 2 | 3): void {
    const scale = digits === 2 ? 100 : 1000;
    const scaled = value * scale;
    let units = Math.floor(scaled);
    const fraction = scaled - units;
    if (!(value >= 0 && value <= 1) || Math.abs(fraction - 0.5) < 1e-9) {
      this.chars(pyFormatFixed(value, digits));
      return;
    }
    if (fraction > 0.5) units++;
    this.reserve(digits + 2);
    const out = this.bytes;
    const at = this.length;
    out[at] = units >= scale ? ZERO + 1 : ZERO;
    out[at + 1] = DOT;
    this.digits(at + 2, digits, units % scale);
    this.length = at + digits + 2;
  }

  /** A non-negative safe integer as String() writes it. */
  integer(value: number): void {
    let digits = 1;
    for (let power = 10; power <= value; power *= 10) digits++;
    this.reserve(digits);
    this.digits(this.length, digits, value);
    this.length += digits;
  }

  /** `value`'s last `count` decimal digits at `at`, zero-padded (room already reserved). */
  private digits(at: number, count: number, value: number): void {
    const out = this.bytes;
    let rest = value;
    for (let k = at + count - 1; k >= at; k--) {
      const digit = rest % 10;
      out[k] = ZERO + digit;
      rest = (rest - digit) / 10;
    }
  }

  utf8(text: string): void {
    // A UTF-16 unit takes at most three bytes in UTF-8 (a surrogate pair, two units, four).
    this.reserve(text.length * 3);
    this.length += this.bytes.write(text, this.length, "utf8");
  }
}
