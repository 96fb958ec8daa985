// Efficiency: the share of a content's bytes that is not padding (what the content repeats
// more often than the source does) or filler (sentences that state nothing of the source).
import { type Counts, QuadIds, SeqInterner } from "./intern";
import type { JsonDoc } from "./json";
import type { Lexicon, TokenInfo } from "./lexicon";
import { segmentsOf, type TextDoc } from "./text";

/**
 * A repeated sentence (or JSON leaf, or run of tokens) costs more than the room it takes:
 * repetition is how a compressor that has run out of things to say fills its budget, so
 * content made of repeats must not reach the score of content that says each thing once.
 */
export const REPEAT_COST = 1.5;

/** Tokens a run is this long to count as repeated within a sentence or line (QuadIds holds four). */
const RUN = 4;

const clamp01 = (x: number) => (x < 0 ? 0 : Math.min(x, 1));

/** JSON against a source: leaves stated more often than the source's (null: not JSON) states them. */
export function jsonEfficiency(lexicon: Lexicon, json: JsonDoc, source: JsonDoc | null, byValue = false): number {
  const allowed = new Map<number, number>();
  const allowedValues = new Map<number, number>();
  for (let n = 0; n < (source?.count ?? 0); n++) {
    const s = source as JsonDoc;
    allowed.set(s.key[n] as number, (allowed.get(s.key[n] as number) ?? 0) + 1);
    allowedValues.set(s.value[n] as number, (allowedValues.get(s.value[n] as number) ?? 0) + 1);
  }
  const seen = new Map<number, number>();
  let total = 0;
  let padding = 0;
  for (let n = 0; n < json.count; n++) {
    const bytes = json.bytes(n);
    total += bytes;
    // /4: a leaf at a path=value the source never states (the JSON changed shape), without a
    // schema, is a repeat when its value is stated more often than the source states it.
    const reshaped = byValue && !allowed.has(json.key[n] as number);
    const id = reshaped ? -1 - (json.value[n] as number) : (json.key[n] as number);
    const limit = reshaped ? (allowedValues.get(json.value[n] as number) ?? 0) : (allowed.get(id) ?? 0);
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    if (count > Math.max(limit, 1)) padding += bytes * REPEAT_COST;
  }
  return total === 0 ? 1 : clamp01(1 - padding / total);
}

/**
 * Text: repeated sentences and runs, and (with the source's keys) filler. `source` is the
 * source when it is text; `sourceKeys` the keys of its facts, null without a source.
 */
export function textEfficiency(
  lexicon: Lexicon,
  doc: TextDoc,
  source: TextDoc | null,
  sourceKeys: Counts | null,
): number {
  // Sentences and runs are this measurement's own: their ids stay out of the kept lexicon.
  const local = new SeqInterner();
  const segments = segmentsOf(doc, lexicon, local);
  const sourceSegments = source ? segmentsOf(source, lexicon, local) : null;
  const inSource = lexicon.counts();
  if (sourceSegments) for (let k = 0; k < sourceSegments.count; k++) inSource.add(sourceSegments.ids[k] as number);
  const seen = lexicon.counts();
  const { store } = doc;
  const first = store.lineStart[doc.firstLine] as number;
  const repeated = repeatedRuns(lexicon, new QuadIds(), doc, source);
  const infos = lexicon.infos;
  let total = 0;
  let wasted = 0;
  for (let k = 0; k < segments.count; k++) {
    const id = segments.ids[k] as number;
    const bytes = segments.bytes[k] as number;
    total += bytes;
    const count = seen.add(id);
    const fromSource = inSource.get(id);
    if (count > Math.max(fromSource, 1)) {
      wasted += bytes * REPEAT_COST;
      continue;
    }
    let repeatedBytes = 0;
    let hits = false;
    for (let t = segments.from[k] as number; t < (segments.to[k] as number); t++) {
      const info = infos[store.tokens[t] as number] as TokenInfo;
      if (repeated !== null && repeated[t - first] === 1) repeatedBytes += info.bytes;
      if (hits || !sourceKeys) continue;
      if (info.kind === "hash") hits = true;
      for (let n = info.indexFrom; n < info.indexTo; n++) if (sourceKeys.has(lexicon.pool[n] as number)) hits = true;
    }
    let waste = repeatedBytes * REPEAT_COST;
    if (sourceKeys && fromSource === 0 && !hits) waste = Math.max(waste, bytes);
    wasted += waste;
  }
  return total === 0 ? 0 : clamp01(1 - wasted / total);
}

/**
 * The content's tokens that stand in a run of RUN tokens (within a line) which the content
 * states more often than the source does: padding that repeats a sentence without ending it
 * ("S S" on one line) is caught like a repeated sentence. One mark per token of the content,
 * or null when no run of the content occurs twice (then the source need not be read for runs).
 */
function repeatedRuns(lexicon: Lexicon, runIds: QuadIds, doc: TextDoc, source: TextDoc | null): Uint8Array | null {
  const { store } = doc;
  const first = store.lineStart[doc.firstLine] as number;
  const tokens = (store.lineStart[doc.endLine] as number) - first;
  let ids = new Int32Array(Math.max(tokens, 1));
  let starts = new Int32Array(Math.max(tokens, 1));
  let runs = 0;
  const totals = lexicon.counts();
  let twice = false;
  forEachRun(lexicon, runIds, doc, (id, at) => {
    if (runs >= ids.length) {
      ids = growTo(ids, runs + 1);
      starts = growTo(starts, runs + 1);
    }
    ids[runs] = id;
    starts[runs++] = at;
    if (totals.add(id) > 1) twice = true;
  });
  if (!twice) return null;
  const inSource = lexicon.counts();
  if (source) forEachRun(lexicon, runIds, source, (id) => inSource.add(id));
  const marks = new Uint8Array(tokens);
  const seen = lexicon.counts();
  for (let r = 0; r < runs; r++) {
    const id = ids[r] as number;
    if (seen.add(id) <= Math.max(inSource.get(id), 1)) continue;
    const at = (starts[r] as number) - first;
    marks.fill(1, at, at + RUN);
  }
  return marks;
}

function growTo(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/** Every run of RUN tokens within a line, in order: its id and where it starts in the store. */
function forEachRun(lexicon: Lexicon, runIds: QuadIds, doc: TextDoc, visit: (id: number, at: number) => void): void {
  const { store } = doc;
  const infos = lexicon.infos;
  const tokens = store.tokens;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    if (b - a < RUN) continue;
    let n0 = (infos[tokens[a] as number] as TokenInfo).norm;
    let n1 = (infos[tokens[a + 1] as number] as TokenInfo).norm;
    let n2 = (infos[tokens[a + 2] as number] as TokenInfo).norm;
    for (let j = a; j + RUN <= b; j++) {
      const n3 = (infos[tokens[j + 3] as number] as TokenInfo).norm;
      visit(runIds.id(n0, n1, n2, n3), j);
      n0 = n1;
      n1 = n2;
      n2 = n3;
    }
  }
}
