// An evaluate batch's items read from its bytes into two reused records, the pass and the
// policy (JsonScanner reads the tokens). An item laid out as clients write it is compared
// with its fixed text between the values; any other is read key by key. A pass id or content
// hash that needs no escaping in either JSON is left as a span of the body, so that the
// manifest writer (manifest.ts) copies its bytes and no string is made. Only plainly valid
// items are taken: a key this reader does not expect or sees twice, a missing field, `null`,
// a minus sign, an escaped key or a value the schema would refuse throws NOT_PLAIN, and the
// body goes the general way, which judges it and words the errors.
import { Buffer } from "node:buffer";
import {
  CONTENT_HASH_LENGTH,
  compressionPassShape,
  compressionPolicySchema,
  evaluateItemSchema,
  isShortText,
  PASS_ID_LENGTH,
} from "../../schemas/guard";
import type { CompressionPass, CompressionPolicy } from "../guard";
import { JsonScanner, NOT_PLAIN } from "./scanner";
import { type Words, wordsOf } from "./words";

// Read once here: a bundled server reaches imported bindings through getters on every use.
const PASS_ID_MIN = PASS_ID_LENGTH.min;
const PASS_ID_MAX = PASS_ID_LENGTH.max;
const HASH_MIN = CONTENT_HASH_LENGTH.min;
const HASH_MAX = CONTENT_HASH_LENGTH.max;
const isStorableShortText = isShortText;
// Defined here, not imported, for the same reason (see scanner.ts).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// Keys in the order clients write them: the schema declares them in the reference's field
// order, which is also what JSON.stringify and Python's dataclasses.asdict give. Each is tried
// first in its place.
const keyBytes = (names: readonly string[]) => names.map((name) => Buffer.from(name, "latin1"));
const ITEM_KEYS = keyBytes(Object.keys(evaluateItemSchema.shape));
const PASS_KEYS = keyBytes(Object.keys(compressionPassShape));
const POLICY_KEYS = keyBytes(Object.keys(compressionPolicySchema.shape));

// An item as clients write it: those keys in that order, with the separators of either
// JSON.stringify (`,` and `:`) or Python's json.dumps (`, ` and `: `). Such an item is fixed
// text between its ten values, compared four bytes at a time without the key-by-key
// bookkeeping; any other item is read key by key.
const itemLayout = (comma: string, colon: string) =>
  [
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
  ].map(wordsOf);

const ITEM_LAYOUTS: readonly [Words[], Words[]] = [itemLayout(",", ":"), itemLayout(", ", ": ")];

export class BatchReader extends JsonScanner {
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

  /** Makes the strings rawText left as spans. */
  strings(): void {
    const bytes = this.bytes;
    if (this.idSpan) this.pass.pass_id = bytes.toString("latin1", this.idStart, this.idEnd);
    if (this.hashSpan) this.pass.current_content_hash = bytes.toString("latin1", this.hashStart, this.hashEnd);
    this.idSpan = this.hashSpan = false;
  }

  shortText(min: number, max: number): string {
    const value = this.string();
    if (this.plain ? value.length < min || value.length > max : !isStorableShortText(value, min, max)) throw NOT_PLAIN;
    return value;
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
