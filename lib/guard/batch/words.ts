// Fixed ASCII text as 32-bit words. The reader compares the body with an item's fixed text and
// the writer copies fixed text into the answer four bytes at a time: on text this short a byte
// loop or Uint8Array.set costs more than the comparing or copying itself.
import { Buffer } from "node:buffer";

/** A fixed text as little-endian 32-bit words; the last is its last four bytes, overlapping. */
export interface Words {
  length: number;
  words: Uint32Array;
}

/** `text` (ASCII) as Words; a text shorter than four bytes has a word for each byte. */
export function wordsOf(text: string): Words {
  const bytes = Buffer.from(text, "latin1");
  const n = bytes.length;
  if (n < 4) return { length: n, words: Uint32Array.from(bytes) };
  const words = new Uint32Array(Math.ceil(n / 4));
  for (let k = 0; k < words.length; k++) words[k] = bytes.readUInt32LE(Math.min(4 * k, n - 4));
  return { length: n, words };
}
