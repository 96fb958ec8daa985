// The evaluate endpoint's batch path without the intermediate values: the body's bytes are
// read field by field straight into two reused records, each item is evaluated as soon as
// it is read, and its manifest is written into the answer's bytes at once. An item whose pass
// id and content hash need no escaping in either JSON (nearly every one) makes no string at
// all: its directive and digest payload are put together from the body's bytes. Parsing a
// 10,000-item batch the general way builds ~60,000 objects and strings, evaluating it and
// serialising the answer ~40,000 more, all alive until the answer is sent: collecting them
// was the largest single cost of the request.
//
// Only plainly valid batches are taken: anything this reader is not sure of (bytes outside
// ASCII, a key it does not expect or sees twice, a missing field, `null`, a minus sign, an
// escaped key, a value quickEvaluateItem would not take, anything that is not JSON) answers
// null, and the caller parses the body the general way, which judges it and words errors.
import { Buffer, isAscii } from "node:buffer";
import { CONTENT_HASH_LENGTH, isShortText, MAX_EVALUATE_BATCH, PASS_ID_LENGTH } from "../schemas/guard";
import {
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
  evaluatePass,
  GATES,
  gateOf,
} from "./guard";
import { sha256Hex } from "./hash";
import { pyFormatFixed } from "./python";

// Node's own one-encoding Buffer methods, without the argument juggling of toString/write:
// this path calls them tens of thousands of times a request.
interface RawBuffer extends Buffer<ArrayBuffer> {
  latin1Slice(start: number, end: number): string;
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
}

// Read once here: a bundled server reaches imported bindings through getters on every use.
const PASS_ID_MIN = PASS_ID_LENGTH.min;
const PASS_ID_MAX = PASS_ID_LENGTH.max;
const HASH_MIN = CONTENT_HASH_LENGTH.min;
const HASH_MAX = CONTENT_HASH_LENGTH.max;
const MAX_ITEMS = MAX_EVALUATE_BATCH;
const isStorableShortText = isShortText;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Thrown (never out of this module) when the body is not a plainly valid batch. */
const NOT_PLAIN = new Error("not a plainly valid evaluate batch");

// Powers of ten a double holds exactly: an integer below 2^53 divided by one of them is
// correctly rounded, so it is the double JSON.parse reads from the same digits.
const EXACT_POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);
const MAX_EXACT_DIGITS = 15;

// Keys in the order clients write them (the reference's field order, which is also what
// JSON.stringify and Python's dataclasses.asdict give): each is tried first in its place.
const keyBytes = (names: readonly string[]) => names.map((name) => Buffer.from(name, "latin1"));
const ITEM_KEYS = keyBytes(["pass", "policy"]);
const PASS_KEYS = keyBytes([
  "pass_id",
  "pass_number",
  "current_content_hash",
  "current_size_bytes",
  "is_parseable",
  "schema_valid",
  "semantic_density_score",
]);
const POLICY_KEYS = keyBytes(["min_size_bytes", "min_semantic_density", "max_pass_number"]);

// An item as clients write it: those keys in that order, with the separators of either
// JSON.stringify (`,` and `:`) or Python's json.dumps (`, ` and `: `). Such an item is fixed
// text between its ten values, compared four bytes at a time without the key-by-key
// bookkeeping (a tenth less time for a whole batch); any other item is read key by key.
const itemLayout = (comma: string, colon: string) =>
  keyBytes([
    `{"pass"${colon}{"pass_id"${colon}`,
    `${comma}"pass_number"${colon}`,
    `${comma}"current_content_hash"${colon}`,
    `${comma}"current_size_bytes"${colon}`,
    `${comma}"is_parseable"${colon}`,
    `${comma}"schema_valid"${colon}`,
    `${comma}"semantic_density_score"${colon}`,
    `}${comma}"policy"${colon}{"min_size_bytes"${colon}`,
    `${comma}"min_semantic_density"${colon}`,
    `${comma}"max_pass_number"${colon}`,
  ]);

/** A fixed text as little-endian 32-bit words; the last is its last four bytes, overlapping. */
interface Words {
  length: number;
  words: Uint32Array;
}

function asWords(text: Buffer): Words {
  const n = text.length;
  if (n < 4) throw new Error("a layout's fixed text is at least four bytes");
  const words = new Uint32Array(Math.ceil(n / 4));
  for (let k = 0; k < words.length; k++) words[k] = text.readUInt32LE(Math.min(4 * k, n - 4));
  return { length: n, words };
}

const ITEM_LAYOUTS: readonly [Words[], Words[]] = [
  itemLayout(",", ":").map(asWords),
  itemLayout(", ", ": ").map(asWords),
];

class BatchReader {
  pos = 0;
  /** Whether the last string read is printable ASCII without '"' or '\', so JSON as it is. */
  plain = true;
  passIdPlain = true;
  /** Which of ITEM_LAYOUTS the last item had: the next is tried with it first. */
  layout: 0 | 1 = 0;
  // The last item's pass id and content hash as spans of the body, when they were read without
  // making strings of them (see rawText); pass.pass_id and current_content_hash are then stale
  // until strings() makes them.
  idSpan = false;
  hashSpan = false;
  idStart = 0;
  idEnd = 0;
  hashStart = 0;
  hashEnd = 0;
  readonly pass: CompressionPass = {
    pass_id: "",
    pass_number: 0,
    current_content_hash: "",
    current_size_bytes: 0,
    is_parseable: false,
    schema_valid: false,
    semantic_density_score: 0,
  };
  readonly policy: CompressionPolicy = { min_size_bytes: 0, min_semantic_density: 0, max_pass_number: 0 };

  readonly view: DataView;

  constructor(readonly bytes: RawBuffer) {
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

  /**
   * Reads `"key":` and answers its index in `keys`, comparing first with the key expected
   * at `slot`; throws for a key not in `keys` (an escaped one may still name a field, but
   * the general path decides).
   */
  key(keys: readonly Buffer[], slot: number): number {
    if (this.peek() !== QUOTE) throw NOT_PLAIN;
    const start = this.pos + 1;
    const guess = keys[slot];
    if (guess === undefined || !this.matches(start, guess)) return this.keyElsewhere(keys, start);
    this.pos = start + guess.length + 1;
    this.expect(COLON);
    return slot;
  }

  // Kept out of key() so that the usual case stays small enough to be inlined.
  keyElsewhere(keys: readonly Buffer[], start: number): number {
    const bytes = this.bytes;
    let pos = start;
    for (let c = bytes[pos]; c !== QUOTE; c = bytes[++pos]) {
      if (c === undefined || c === BACKSLASH || c < 0x20) throw NOT_PLAIN;
    }
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as Buffer;
      if (key.length === pos - start && this.matches(start, key)) {
        this.pos = pos + 1;
        this.expect(COLON);
        return index;
      }
    }
    throw NOT_PLAIN;
  }

  /** Whether the key at `start` is `name`, closing quote included. */
  matches(start: number, name: Buffer): boolean {
    const bytes = this.bytes;
    const length = name.length;
    for (let i = 0; i < length; i++) if (bytes[start + i] !== name[i]) return false;
    return bytes[start + length] === QUOTE;
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
    return escaped ? this.unescape(start - 1, pos + 1) : bytes.latin1Slice(start, pos);
  }

  unescape(start: number, end: number): string {
    try {
      return JSON.parse(this.bytes.latin1Slice(start, end)) as string;
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

  /** Makes the strings rawText left as spans. */
  strings(): void {
    const bytes = this.bytes;
    if (this.idSpan) this.pass.pass_id = bytes.latin1Slice(this.idStart, this.idEnd);
    if (this.hashSpan) this.pass.current_content_hash = bytes.latin1Slice(this.hashStart, this.hashEnd);
    this.idSpan = this.hashSpan = false;
  }

  shortText(min: number, max: number): string {
    const value = this.string();
    if (this.plain ? value.length < min || value.length > max : !isStorableShortText(value, min, max)) throw NOT_PLAIN;
    return value;
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
    return Number(bytes.latin1Slice(start, pos));
  }

  count(): number {
    // Never negative: the reader takes no minus sign.
    const value = this.number();
    if (!Number.isSafeInteger(value)) throw NOT_PLAIN;
    return value;
  }

  unit(): number {
    const value = this.number();
    if (!(value <= 1)) throw NOT_PLAIN;
    return value;
  }

  readPass(): void {
    const pass = this.pass;
    this.expect(OPEN_BRACE);
    let seen = 0;
    let slot = 0;
    do {
      const field = this.key(PASS_KEYS, slot++);
      // A repeated key: JSON.parse keeps the last, but such a batch is not plain.
      if (seen & (1 << field)) throw NOT_PLAIN;
      seen |= 1 << field;
      switch (field) {
        case 0:
          pass.pass_id = this.shortText(PASS_ID_MIN, PASS_ID_MAX);
          this.passIdPlain = this.plain;
          break;
        case 1:
          pass.pass_number = this.count();
          break;
        case 2:
          pass.current_content_hash = this.shortText(HASH_MIN, HASH_MAX);
          break;
        case 3:
          pass.current_size_bytes = this.count();
          break;
        case 4:
          pass.is_parseable = this.boolean();
          break;
        case 5:
          pass.schema_valid = this.boolean();
          break;
        default:
          pass.semantic_density_score = this.unit();
      }
    } while (this.more());
    if (seen !== 0b111_1111) throw NOT_PLAIN;
  }

  readPolicy(): void {
    const policy = this.policy;
    this.expect(OPEN_BRACE);
    let seen = 0;
    let slot = 0;
    do {
      const field = this.key(POLICY_KEYS, slot++);
      if (seen & (1 << field)) throw NOT_PLAIN;
      seen |= 1 << field;
      if (field === 0) policy.min_size_bytes = this.count();
      else if (field === 1) policy.min_semantic_density = this.unit();
      else policy.max_pass_number = this.count();
    } while (this.more());
    if (seen !== 0b111) throw NOT_PLAIN;
  }

  /** The next item, read by its layout when it has the usual one, else key by key. */
  readAnyItem(): void {
    this.peek();
    const start = this.pos;
    if (this.readLaidOut(ITEM_LAYOUTS[this.layout])) return;
    this.layout = this.layout === 0 ? 1 : 0;
    this.pos = start;
    if (this.readLaidOut(ITEM_LAYOUTS[this.layout])) return;
    this.pos = start;
    this.readItem();
  }

  /**
   * Reads an item laid out as `parts` says (fixed text between the values, whitespace allowed
   * before a value); false, part-way, where the item's text differs. A value is read exactly
   * as readItem reads it, so one this path refuses readItem would refuse too.
   */
  readLaidOut(parts: readonly Words[]): boolean {
    const pass = this.pass;
    const policy = this.policy;
    this.idSpan = this.hashSpan = false;
    if (!this.text(parts[0] as Words)) return false;
    const idStart = this.rawText(PASS_ID_MIN, PASS_ID_MAX);
    if (idStart >= 0) {
      this.idSpan = true;
      this.idStart = idStart;
      this.idEnd = this.pos - 1;
      this.passIdPlain = true;
    } else {
      pass.pass_id = this.shortText(PASS_ID_MIN, PASS_ID_MAX);
      this.passIdPlain = this.plain;
    }
    if (!this.text(parts[1] as Words)) return false;
    pass.pass_number = this.count();
    if (!this.text(parts[2] as Words)) return false;
    const hashStart = this.rawText(HASH_MIN, HASH_MAX);
    if (hashStart >= 0) {
      this.hashSpan = true;
      this.hashStart = hashStart;
      this.hashEnd = this.pos - 1;
    } else {
      pass.current_content_hash = this.shortText(HASH_MIN, HASH_MAX);
    }
    if (!this.text(parts[3] as Words)) return false;
    pass.current_size_bytes = this.count();
    if (!this.text(parts[4] as Words)) return false;
    pass.is_parseable = this.boolean();
    if (!this.text(parts[5] as Words)) return false;
    pass.schema_valid = this.boolean();
    if (!this.text(parts[6] as Words)) return false;
    pass.semantic_density_score = this.unit();
    if (!this.text(parts[7] as Words)) return false;
    policy.min_size_bytes = this.count();
    if (!this.text(parts[8] as Words)) return false;
    policy.min_semantic_density = this.unit();
    if (!this.text(parts[9] as Words)) return false;
    policy.max_pass_number = this.count();
    const bytes = this.bytes;
    const end = this.pos;
    if (bytes[end] !== CLOSE_BRACE || bytes[end + 1] !== CLOSE_BRACE) return false;
    this.pos = end + 2;
    return true;
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

  readItem(): void {
    this.idSpan = this.hashSpan = false;
    this.expect(OPEN_BRACE);
    let seen = 0;
    let slot = 0;
    do {
      const field = this.key(ITEM_KEYS, slot++);
      if (seen & (1 << field)) throw NOT_PLAIN;
      seen |= 1 << field;
      if (field === 0) this.readPass();
      else this.readPolicy();
    } while (this.more());
    if (seen !== 0b11) throw NOT_PLAIN;
  }
}

/** The answer's bytes, grown as needed; every string written to it is ASCII unless said. */
class AnswerWriter {
  length = 0;
  private view: DataView;

  // Sized for the usual answer, which is smaller than its batch, so it is rarely grown.
  constructor(public bytes: RawBuffer) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reserve(room: number): void {
    if (this.length + room <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + room)) as RawBuffer;
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }

  ascii(text: string): void {
    this.reserve(text.length);
    this.length += this.bytes.latin1Write(text, this.length);
  }

  byte(code: number): void {
    this.reserve(1);
    this.bytes[this.length++] = code;
  }

  // Fixed text and spans of the body are copied four bytes at a time: a byte loop or
  // Uint8Array.set costs more than the copying on text this short.

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

  /** An ASCII string. A loop, not latin1Write: its C++ call costs more than a short string. */
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
    this.length += this.bytes.utf8Write(text, this.length);
  }
}

/** A fixed text for AnswerWriter.fixed: shorter than four bytes, a word for each byte. */
function fixed(text: string): Words {
  const bytes = Buffer.from(text, "latin1");
  return bytes.length < 4 ? { length: bytes.length, words: Uint32Array.from(bytes) } : asWords(bytes);
}

// The answer's text around the values of each gate's manifest, as evaluatePass writes it:
// from the verdict to the directive's first value, and from its last to the digest.
const FIRST_PASS = fixed('{"verdict":"NO_RECURSIVE_COMPRESSION","directive":"PROCEED: Pass ');
const FIRST_PASS_END = fixed(' is first pass.","manifest_digest":"');
const MAX_PASS = fixed('{"verdict":"COLLAPSE_IMMINENT","directive":"HALT: Pass ');
const MAX_PASS_END = fixed(', use previous.","manifest_digest":"');
const UNPARSEABLE = fixed('{"verdict":"FLOOR_BREACH_DETECTED","directive":"HALT: Pass ');
const UNPARSEABLE_END = fixed(' unparseable, restore previous.","manifest_digest":"');
const SCHEMA_INVALID_END = fixed(' schema invalid.","manifest_digest":"');
const TOO_SMALL = fixed('{"verdict":"COLLAPSE_IMMINENT","directive":"HALT: Size ');
const TOO_SMALL_END = fixed(', next pass will collapse.","manifest_digest":"');
const LOW_DENSITY = fixed('{"verdict":"COLLAPSE_IMMINENT","directive":"HALT: Density ');
const LOW_DENSITY_END = fixed('.","manifest_digest":"');
const SAFE = fixed('{"verdict":"SAFE_TO_COMPRESS","directive":"PROCEED: Pass ');
const SAFE_END = fixed(' safe for further compression.","manifest_digest":"');
const OVER = fixed(" > ");
const UNDER = fixed(" < ");
const END = fixed('"}');
// The digests' payloads.
const FIRST_PASS_NUMBER = fixed('{"number": "');
const PASS_KEY = fixed('", "pass": "');
const MAX_PASS_PAYLOAD = fixed("MAX_PASS:");
const UNPARSEABLE_PAYLOAD = fixed("UNPARSEABLE:");
const SCHEMA_PAYLOAD = fixed("SCHEMA:");
const SMALL_PAYLOAD = fixed("SMALL:");
const LOW_DENSITY_PAYLOAD = fixed("LOW_DENSITY:");
const SAFE_DENSITY = fixed('{"density": "');
const SAFE_HASH = fixed('", "hash": "');
const SAFE_NUMBER = fixed('", "number": "');
const SAFE_SIZE = fixed('", "size": "');

/**
 * The digest of what is written in `payload`: crypto.hash takes a view of the payload's buffer,
 * and a view of each length is made once (per buffer: a long payload grows it).
 */
class PayloadHasher {
  readonly payload = new AnswerWriter(Buffer.allocUnsafeSlow(1024) as RawBuffer);
  private views: Uint8Array[] = [];
  private viewsOf: Buffer = this.payload.bytes;

  digest(): string {
    const { bytes, length } = this.payload;
    if (bytes !== this.viewsOf) {
      this.views = [];
      this.viewsOf = bytes;
    }
    let view = this.views[length];
    if (view === undefined) {
      view = new Uint8Array(bytes.buffer, bytes.byteOffset, length);
      this.views[length] = view;
    }
    return sha256Hex(view);
  }
}

// evaluateBatch runs to its end without yielding, so one hasher serves every call on a thread.
const hasher = new PayloadHasher();

/**
 * evaluatePass's manifest for the item `reader` last read, its pass id and content hash
 * still spans of the body, written as JSON.stringify writes it: the text of evaluatePass put
 * together from bytes, without the strings and objects evaluatePass makes.
 */
function writeManifest(out: AnswerWriter, reader: BatchReader): void {
  const { pass, policy } = reader;
  const payload = hasher.payload;
  // Empty whatever an earlier item left in it.
  payload.length = 0;
  switch (gateOf(pass, policy)) {
    case GATES.firstPass:
      aroundId(out, FIRST_PASS, reader, FIRST_PASS_END);
      payload.fixed(FIRST_PASS_NUMBER);
      payload.integer(pass.pass_number);
      aroundId(payload, PASS_KEY, reader, END);
      break;
    case GATES.maxPass:
      twoNumbers(out, MAX_PASS, pass.pass_number, OVER, policy.max_pass_number, MAX_PASS_END);
      aroundId(payload, MAX_PASS_PAYLOAD, reader);
      break;
    case GATES.unparseable:
      aroundId(out, UNPARSEABLE, reader, UNPARSEABLE_END);
      aroundId(payload, UNPARSEABLE_PAYLOAD, reader);
      break;
    case GATES.schemaInvalid:
      aroundId(out, UNPARSEABLE, reader, SCHEMA_INVALID_END);
      aroundId(payload, SCHEMA_PAYLOAD, reader);
      break;
    case GATES.tooSmall:
      twoNumbers(out, TOO_SMALL, pass.current_size_bytes, UNDER, policy.min_size_bytes, TOO_SMALL_END);
      aroundId(payload, SMALL_PAYLOAD, reader);
      break;
    case GATES.lowDensity:
      out.fixed(LOW_DENSITY);
      out.fixedPoint(pass.semantic_density_score, 2);
      out.fixed(UNDER);
      out.fixedPoint(policy.min_semantic_density, 2);
      out.fixed(LOW_DENSITY_END);
      aroundId(payload, LOW_DENSITY_PAYLOAD, reader);
      break;
    case GATES.safe:
      out.fixed(SAFE);
      out.integer(pass.pass_number);
      out.fixed(SAFE_END);
      payload.fixed(SAFE_DENSITY);
      payload.fixedPoint(pass.semantic_density_score, 3);
      payload.fixed(SAFE_HASH);
      payload.span(reader.view, reader.hashStart, reader.hashEnd);
      payload.fixed(SAFE_NUMBER);
      payload.integer(pass.pass_number);
      aroundId(payload, PASS_KEY, reader, SAFE_SIZE);
      payload.integer(pass.current_size_bytes);
      payload.fixed(END);
      break;
  }
  out.chars(hasher.digest());
  out.fixed(END);
}

/** `before`, the pass id `reader` last read (a span of its bytes), then `after` if given. */
function aroundId(writer: AnswerWriter, before: Words, reader: BatchReader, after?: Words): void {
  writer.fixed(before);
  writer.span(reader.view, reader.idStart, reader.idEnd);
  if (after) writer.fixed(after);
}

/** `head`, `a`, `middle`, `b`, `tail`: a directive around two counts. */
function twoNumbers(out: AnswerWriter, head: Words, a: number, middle: Words, b: number, tail: Words): void {
  out.fixed(head);
  out.integer(a);
  out.fixed(middle);
  out.integer(b);
  out.fixed(tail);
}

/** A manifest evaluatePass made, as JSON.stringify writes it. */
function writeParsedManifest(out: AnswerWriter, manifest: CompressionManifest, passIdPlain: boolean): void {
  // The directive is fixed ASCII text around the pass id and numbers: it needs escaping
  // only where the pass id does.
  if (passIdPlain) {
    out.ascii(
      `{"verdict":"${manifest.verdict}","directive":"${manifest.directive}","manifest_digest":"${manifest.manifest_digest}"}`,
    );
  } else {
    out.ascii(`{"verdict":"${manifest.verdict}","directive":`);
    out.utf8(JSON.stringify(manifest.directive));
    out.ascii(`,"manifest_digest":"${manifest.manifest_digest}"}`);
  }
}

/** A batch's answer: its JSON bytes, and how many items it answers. */
export interface BatchAnswer {
  bytes: Buffer<ArrayBuffer>;
  items: number;
}

/**
 * Evaluates a JSON batch (an ASCII array of 1..maxItems items, each one that
 * quickEvaluateItem takes whole) and answers its manifests as JSON bytes, exactly
 * `JSON.stringify(items.map((i) => evaluatePass(i.pass, i.policy)))` of the parsed body in
 * UTF-8; null for any other body. With `from`, the batch is the body's items from there on
 * (just past a comma between two items) to its `]`, as if a `[` came first.
 */
export function evaluateBatch(body: Uint8Array, maxItems: number = MAX_ITEMS, from?: number): BatchAnswer | null {
  if (!isAscii(body)) return null;
  const reader = new BatchReader(Buffer.from(body.buffer, body.byteOffset, body.byteLength) as RawBuffer);
  const out = new AnswerWriter(Buffer.allocUnsafe(Math.max(4096, body.byteLength - (from ?? 0))) as RawBuffer);
  let items = 0;
  try {
    if (from === undefined) reader.expect(OPEN_BRACKET);
    else reader.pos = from;
    out.ascii("[");
    for (;;) {
      if (++items > maxItems) return null;
      reader.readAnyItem();
      if (reader.idSpan && reader.hashSpan) {
        writeManifest(out, reader);
      } else {
        reader.strings();
        writeParsedManifest(out, evaluatePass(reader.pass, reader.policy), reader.passIdPlain);
      }
      const c = reader.peek();
      reader.pos++;
      if (c === CLOSE_BRACKET) break;
      if (c !== COMMA) return null;
      out.byte(COMMA);
    }
    reader.peek();
    if (reader.pos !== body.byteLength) return null;
  } catch (error) {
    if (error === NOT_PLAIN) return null;
    throw error;
  }
  out.ascii("]");
  return { bytes: out.bytes.subarray(0, out.length), items };
}

/** evaluateBatch's bytes, for a batch of up to MAX_EVALUATE_BATCH items. */
export function evaluateBatchBytes(body: Uint8Array): Buffer<ArrayBuffer> | null {
  return evaluateBatch(body)?.bytes ?? null;
}
