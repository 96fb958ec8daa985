// Each item's manifest written into the answer as JSON.stringify writes evaluatePass's, with
// the text of MANIFEST_TEXT (guard.ts) cut at its values: for an item whose pass id and
// content hash are spans of the body (BatchReader), the directive and the digest's payload
// are those pieces around bytes copied from the body and numbers written as digits, so the
// item makes no string at all; any other item goes through evaluatePass itself.
import { Buffer } from "node:buffer";
import { type CompressionManifest, evaluatePass, GATES, gateOf, MANIFEST_TEXT, type Verdict } from "../guard";
import { sha256Hex } from "../hash";
import type { BatchReader } from "./reader";
import { AnswerWriter } from "./writer";
import { type Words, wordsOf } from "./words";

type Value = string | number;

/** A text's fixed pieces: one before each value and one after the last. */
type Pieces<A extends Value[]> = AsWords<[...A, Value]>;
type AsWords<T> = { [K in keyof T]: Words };

// Marks put in place of the values to find where the text cuts: private-use characters, which
// the contract's wording never holds.
const MARK = 0xe000;

/**
 * `template`'s fixed pieces, `before` put ahead of the first and `after` behind the last. They
 * are copied as bytes: into payloads hashed as UTF-8, and (`inJson`) into a JSON string, so
 * they must be ASCII that JSON writes as it is.
 */
function cut<A extends Value[]>(
  template: (...values: A) => string,
  { inJson = false, before = "", after = "" } = {},
): Pieces<A> {
  const marks = Array.from({ length: template.length }, (_, i) => String.fromCharCode(MARK + i));
  const text = template(...(marks as A));
  const pieces: string[] = [];
  let from = 0;
  for (const mark of marks) {
    const at = text.indexOf(mark, from);
    if (at < 0) throw new Error(`a manifest text uses its values out of order: ${template}`);
    pieces.push(text.slice(from, at));
    from = at + 1;
  }
  pieces.push(text.slice(from));
  for (const piece of pieces) {
    if (!/^[\x20-\x7e]*$/.test(piece) || (inJson && JSON.stringify(piece) !== `"${piece}"`)) {
      throw new Error(`a manifest text cannot be copied as it is: ${JSON.stringify(piece)}`);
    }
  }
  pieces[0] = before + pieces[0];
  pieces[pieces.length - 1] += after;
  return pieces.map(wordsOf) as Pieces<A>;
}

/** A gate's directive pieces, the answer's JSON around them: from the verdict to the digest. */
const directive = <A extends Value[]>(text: { verdict: Verdict; directive: (...values: A) => string }) =>
  cut(text.directive, {
    inJson: true,
    before: `{"verdict":"${text.verdict}","directive":"`,
    after: '","manifest_digest":"',
  });

const T = MANIFEST_TEXT;
const [FIRST_PASS, FIRST_PASS_END] = directive(T.firstPass);
const [FIRST_PASS_PAYLOAD, FIRST_PASS_PAYLOAD_ID, FIRST_PASS_PAYLOAD_END] = cut(T.firstPass.payload);
const [MAX_PASS, MAX_PASS_OVER, MAX_PASS_END] = directive(T.maxPass);
const [MAX_PASS_PAYLOAD, MAX_PASS_PAYLOAD_END] = cut(T.maxPass.payload);
const [UNPARSEABLE, UNPARSEABLE_END] = directive(T.unparseable);
const [UNPARSEABLE_PAYLOAD, UNPARSEABLE_PAYLOAD_END] = cut(T.unparseable.payload);
const [SCHEMA_INVALID, SCHEMA_INVALID_END] = directive(T.schemaInvalid);
const [SCHEMA_INVALID_PAYLOAD, SCHEMA_INVALID_PAYLOAD_END] = cut(T.schemaInvalid.payload);
const [TOO_SMALL, TOO_SMALL_UNDER, TOO_SMALL_END] = directive(T.tooSmall);
const [TOO_SMALL_PAYLOAD, TOO_SMALL_PAYLOAD_END] = cut(T.tooSmall.payload);
const [LOW_DENSITY, LOW_DENSITY_UNDER, LOW_DENSITY_END] = directive(T.lowDensity);
const [LOW_DENSITY_PAYLOAD, LOW_DENSITY_PAYLOAD_END] = cut(T.lowDensity.payload);
const [SAFE, SAFE_END] = directive(T.safe);
const [SAFE_PAYLOAD, SAFE_HASH, SAFE_NUMBER, SAFE_ID, SAFE_SIZE, SAFE_PAYLOAD_END] = cut(T.safe.payload);
const END = wordsOf('"}');

/**
 * The digest of what is written in `payload`: crypto.hash takes a view of the payload's buffer,
 * and a view of each length is made once (per buffer: a long payload grows it).
 */
class PayloadHasher {
  readonly payload = new AnswerWriter(Buffer.allocUnsafeSlow(1024));
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

// An answer is written to its end without yielding, so one hasher serves every call on a thread.
const hasher = new PayloadHasher();

/**
 * evaluatePass's manifest for the item `reader` last read, its pass id and content hash
 * still spans of the body, written as JSON.stringify writes it.
 */
export function writeManifest(out: AnswerWriter, reader: BatchReader): void {
  const { pass, policy } = reader;
  const payload = hasher.payload;
  // Empty whatever an earlier item left in it.
  payload.length = 0;
  switch (gateOf(pass, policy)) {
    case GATES.firstPass:
      aroundId(out, FIRST_PASS, reader, FIRST_PASS_END);
      payload.fixed(FIRST_PASS_PAYLOAD);
      payload.integer(pass.pass_number);
      aroundId(payload, FIRST_PASS_PAYLOAD_ID, reader, FIRST_PASS_PAYLOAD_END);
      break;
    case GATES.maxPass:
      twoNumbers(out, MAX_PASS, pass.pass_number, MAX_PASS_OVER, policy.max_pass_number, MAX_PASS_END);
      aroundId(payload, MAX_PASS_PAYLOAD, reader, MAX_PASS_PAYLOAD_END);
      break;
    case GATES.unparseable:
      aroundId(out, UNPARSEABLE, reader, UNPARSEABLE_END);
      aroundId(payload, UNPARSEABLE_PAYLOAD, reader, UNPARSEABLE_PAYLOAD_END);
      break;
    case GATES.schemaInvalid:
      aroundId(out, SCHEMA_INVALID, reader, SCHEMA_INVALID_END);
      aroundId(payload, SCHEMA_INVALID_PAYLOAD, reader, SCHEMA_INVALID_PAYLOAD_END);
      break;
    case GATES.tooSmall:
      twoNumbers(out, TOO_SMALL, pass.current_size_bytes, TOO_SMALL_UNDER, policy.min_size_bytes, TOO_SMALL_END);
      aroundId(payload, TOO_SMALL_PAYLOAD, reader, TOO_SMALL_PAYLOAD_END);
      break;
    case GATES.lowDensity:
      out.fixed(LOW_DENSITY);
      out.fixedPoint(pass.semantic_density_score, 2);
      out.fixed(LOW_DENSITY_UNDER);
      out.fixedPoint(policy.min_semantic_density, 2);
      out.fixed(LOW_DENSITY_END);
      aroundId(payload, LOW_DENSITY_PAYLOAD, reader, LOW_DENSITY_PAYLOAD_END);
      break;
    case GATES.safe:
      out.fixed(SAFE);
      out.integer(pass.pass_number);
      out.fixed(SAFE_END);
      payload.fixed(SAFE_PAYLOAD);
      payload.fixedPoint(pass.semantic_density_score, 3);
      payload.fixed(SAFE_HASH);
      payload.span(reader.view, reader.hashStart, reader.hashEnd);
      payload.fixed(SAFE_NUMBER);
      payload.integer(pass.pass_number);
      aroundId(payload, SAFE_ID, reader, SAFE_SIZE);
      payload.integer(pass.current_size_bytes);
      payload.fixed(SAFE_PAYLOAD_END);
      break;
  }
  out.chars(hasher.digest());
  out.fixed(END);
}

/** `before`, the pass id `reader` last read (a span of its bytes), then `after`. */
function aroundId(writer: AnswerWriter, before: Words, reader: BatchReader, after: Words): void {
  writer.fixed(before);
  writer.span(reader.view, reader.idStart, reader.idEnd);
  writer.fixed(after);
}

/** `head`, `a`, `middle`, `b`, `tail`: a directive around two counts. */
function twoNumbers(out: AnswerWriter, head: Words, a: number, middle: Words, b: number, tail: Words): void {
  out.fixed(head);
  out.integer(a);
  out.fixed(middle);
  out.integer(b);
  out.fixed(tail);
}

/** evaluatePass's manifest for the item `reader` last read, as JSON.stringify writes it. */
export function writeEvaluatedManifest(out: AnswerWriter, reader: BatchReader): void {
  reader.strings();
  const manifest: CompressionManifest = evaluatePass(reader.pass, reader.policy);
  // The directive is fixed ASCII text around the pass id and numbers: it needs escaping
  // only where the pass id does.
  if (reader.passIdPlain) {
    out.ascii(
      `{"verdict":"${manifest.verdict}","directive":"${manifest.directive}","manifest_digest":"${manifest.manifest_digest}"}`,
    );
  } else {
    out.ascii(`{"verdict":"${manifest.verdict}","directive":`);
    out.utf8(JSON.stringify(manifest.directive));
    out.ascii(`,"manifest_digest":"${manifest.manifest_digest}"}`);
  }
}
