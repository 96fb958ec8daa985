// An evaluate batch answered straight from its bytes, without the intermediate values: the
// body is read field by field into two reused records (BatchReader), each item is evaluated
// as soon as it is read, and its manifest is written into the answer's bytes at once
// (manifest.ts). Parsing a large batch the general way builds objects and strings for every
// field, and evaluating and serialising it as many again, all alive until the answer is sent:
// collecting them was the largest single cost of the request.
//
// Only plainly valid batches are taken: anything the reader is not sure of (bytes outside
// ASCII, a key it does not expect, anything that is not JSON) answers null, and the caller
// parses the body the general way, which judges it and words the errors.
import { Buffer, isAscii } from "node:buffer";
import { MAX_EVALUATE_BATCH } from "../../schemas/guard";
import { writeEvaluatedManifest, writeManifest } from "./manifest";
import { BatchReader } from "./reader";
import { NOT_PLAIN } from "./scanner";
import { AnswerWriter } from "./writer";

// Read once and defined here: a bundled server reaches imported bindings through getters on every use.
const MAX_ITEMS = MAX_EVALUATE_BATCH;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A batch's answer: its JSON bytes, and how many items it answers. */
export interface BatchAnswer {
  bytes: Buffer<ArrayBuffer>;
  items: number;
}

/**
 * Evaluates a JSON batch (an ASCII array of 1..maxItems plainly valid items) and answers its
 * manifests as JSON bytes, exactly `JSON.stringify(items.map((i) => evaluatePass(i.pass,
 * i.policy)))` of the parsed body in UTF-8; null for any other body. With `from`, the batch is
 * the body's items from there on (just past a comma between two items) to its `]`, as if a `[`
 * came first.
 */
export function evaluateBatch(body: Uint8Array, maxItems: number = MAX_ITEMS, from?: number): BatchAnswer | null {
  if (!isAscii(body)) return null;
  const reader = new BatchReader(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  const out = new AnswerWriter(Buffer.allocUnsafe(Math.max(4096, body.byteLength - (from ?? 0))));
  let items = 0;
  try {
    if (from === undefined) reader.expect(OPEN_BRACKET);
    else reader.pos = from;
    out.byte(OPEN_BRACKET);
    for (;;) {
      if (++items > maxItems) return null;
      reader.readAnyItem();
      if (reader.idSpan && reader.hashSpan) writeManifest(out, reader);
      else writeEvaluatedManifest(out, reader);
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
  out.byte(CLOSE_BRACKET);
  return { bytes: out.bytes.subarray(0, out.length), items };
}

/** evaluateBatch's bytes, for a batch of up to MAX_EVALUATE_BATCH items. */
export function evaluateBatchBytes(body: Uint8Array): Buffer<ArrayBuffer> | null {
  return evaluateBatch(body)?.bytes ?? null;
}
