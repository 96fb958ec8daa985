// Efficiency: the share of a content's bytes that is not padding (what the content repeats
// more often than the source does) or filler (sentences that state nothing of the source).
import { growInt32, SeqInterner } from "./intern";
import { QuadIds } from "./tables";
import type { JsonDoc } from "./json";
import { Kept, type Lexicon, type TokenInfo } from "./lexicon";
import { SourcePairs } from "./order";
import { SourceRecords } from "./bindings";
import { incidentalLines, type Segments, segmentsOf, type TextDoc } from "./text";

/**
 * A repeated sentence (or JSON leaf, or run of tokens) costs more than the room it takes:
 * repetition is how a compressor that has run out of things to say fills its budget, so
 * content made of repeats must not reach the score of content that says each thing once.
 */
export const REPEAT_COST = 1.5;

/** Tokens a run is this long to count as repeated within a sentence or line (QuadIds holds four). */
const RUN = 4;

const clamp01 = (x: number) => (x < 0 ? 0 : Math.min(x, 1));

/**
 * JSON against a source: leaves stated more often than the source's (null: not JSON) states
 * them. With `byValue` (no schema), a leaf at a path the source does not have (the JSON changed
 * its shape) is a repeat when its value is stated more often than the source states that value.
 */
export function jsonEfficiency(lexicon: Lexicon, json: JsonDoc, source: JsonDoc | null, byValue = false): number {
  const allowed = lexicon.counts();
  const allowedValues = lexicon.counts();
  if (source)
    for (let n = 0; n < source.count; n++) {
      allowed.add(source.key[n] as number);
      if (byValue) allowedValues.add(source.value[n] as number);
    }
  const seen = lexicon.counts();
  const seenValues = lexicon.counts();
  let total = 0;
  let padding = 0;
  for (let n = 0; n < json.count; n++) {
    const bytes = json.bytes(n);
    const id = json.key[n] as number;
    total += bytes;
    const limit = allowed.get(id);
    if (byValue && limit === 0) {
      const value = json.value[n] as number;
      if (seenValues.add(value) > Math.max(allowedValues.get(value), 1)) padding += bytes * REPEAT_COST;
      continue;
    }
    if (seen.add(id) > Math.max(limit, 1)) padding += bytes * REPEAT_COST;
  }
  return total === 0 ? 1 : clamp01(1 - padding / total);
}

/** What filler is judged by: the keys some fact of the source needs. */
export interface KeySet {
  has(id: number): boolean;
}

/**
 * A text source's sentences and runs of tokens, each counted once for all the contents measured
 * against it (a chain measures every pass against one source). Counted when first asked for.
 */
export class SourceText {
  private sentences: SeqInterner | null = null;
  private sentenceCounts = new Int32Array(0);
  private runs: QuadIds | null = null;
  private runCounts = new Int32Array(0);
  private neighbours: SourcePairs | null = null;
  private recordsOf: SourceRecords | null = null;

  constructor(
    private readonly lexicon: Lexicon,
    readonly doc: TextDoc,
  ) {}

  /** The source's neighbouring tokens (see order.ts), found when first asked for. */
  get pairs(): SourcePairs {
    this.neighbours ??= new SourcePairs(this.lexicon, this.doc);
    return this.neighbours;
  }

  /** The source's records (see bindings.ts), found when first asked for. */
  get records(): SourceRecords {
    this.recordsOf ??= new SourceRecords(this.lexicon, this.doc, incidentalLines(this.doc));
    return this.recordsOf;
  }

  /** How often the source states the sentence `atoms[from, to)`. */
  sentenceCount(atoms: Int32Array, from: number, to: number): number {
    if (!this.sentences) {
      const sentences = new SeqInterner();
      const segments = segmentsOf(this.doc, this.lexicon, sentences);
      const counts = new Int32Array(sentences.count);
      for (let k = 0; k < segments.count; k++) {
        const id = segments.ids[k] as number;
        counts[id] = (counts[id] as number) + 1;
      }
      this.sentences = sentences;
      this.sentenceCounts = counts;
    }
    const id = this.sentences.lookup(atoms, from, to);
    return id < 0 ? 0 : (this.sentenceCounts[id] as number);
  }

  /** How often the source states the run of four tokens whose norms are a, b, c, d. */
  runCount(a: number, b: number, c: number, d: number): number {
    if (!this.runs) {
      const runs = new QuadIds();
      const { store } = this.doc;
      runs.reserve((store.lineStart[this.doc.endLine] as number) - (store.lineStart[this.doc.firstLine] as number));
      let counts = new Int32Array(64);
      forEachRun(this.lexicon, runs, this.doc, (id) => {
        counts = growInt32(counts, id + 1);
        counts[id] = (counts[id] as number) + 1;
      });
      this.runs = runs;
      this.runCounts = counts;
    }
    const id = this.runs.find(a, b, c, d);
    return id < 0 ? 0 : (this.runCounts[id] as number);
  }
}

/**
 * Text: repeated sentences and runs, and (with the source's keys) filler. `source` is the
 * source when it is text; `sourceKeys` the keys of its facts, null without a source.
 */
export function textEfficiency(
  lexicon: Lexicon,
  doc: TextDoc,
  source: SourceText | null,
  sourceKeys: KeySet | null,
  misbound: Uint8Array | null = null,
): number {
  // Sentences and runs are this measurement's own: their ids stay out of the kept lexicon.
  const scratch = scratchOf(lexicon);
  const local = scratch.sentences;
  local.rollback(0);
  const segments = segmentsOf(doc, lexicon, local, scratch.segments);
  const seen = lexicon.counts();
  const { store } = doc;
  const first = store.lineStart[doc.firstLine] as number;
  const repeated = repeatedRuns(lexicon, scratch, doc, source);
  const infos = lexicon.infos;
  let total = 0;
  let wasted = 0;
  for (let k = 0; k < segments.count; k++) {
    const id = segments.ids[k] as number;
    const bytes = segments.bytes[k] as number;
    total += bytes;
    const count = seen.add(id);
    const fromSource = source
      ? source.sentenceCount(local.pool, local.start[id] as number, local.start[id + 1] as number)
      : 0;
    if (count > Math.max(fromSource, 1)) {
      wasted += bytes * REPEAT_COST;
      continue;
    }
    let repeatedBytes = 0;
    let hits = false;
    for (let t = segments.from[k] as number; t < (segments.to[k] as number); t++) {
      const token = store.tokens[t] as number;
      if (repeated !== null && repeated[t - first] === 1) repeatedBytes += lexicon.bytes[token] as number;
      if (hits || !sourceKeys) continue;
      const info = infos[token] as TokenInfo;
      if (info.kind === "hash") hits = true;
      for (let n = info.indexFrom; n < info.indexTo; n++) if (sourceKeys.has(lexicon.pool[n] as number)) hits = true;
    }
    let waste = repeatedBytes * REPEAT_COST;
    if (sourceKeys && fromSource === 0 && !hits) waste = Math.max(waste, bytes);
    // A stretch that binds a fact to another record states nothing true of the source.
    if (misbound !== null) {
      let falseBytes = 0;
      for (let t = segments.from[k] as number; t < (segments.to[k] as number); t++)
        if (misbound[t - first] === 1) falseBytes += lexicon.bytes[store.tokens[t] as number] as number;
      waste = Math.max(waste, falseBytes);
    }
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
function repeatedRuns(
  lexicon: Lexicon,
  scratch: EfficiencyScratch,
  doc: TextDoc,
  source: SourceText | null,
): Uint8Array | null {
  const { store } = doc;
  const first = store.lineStart[doc.firstLine] as number;
  const tokens = (store.lineStart[doc.endLine] as number) - first;
  // A run starts at each token but the last three of a line: at most one per token.
  if (scratch.ids.length < tokens) {
    scratch.ids = new Int32Array(tokens);
    scratch.starts = new Int32Array(tokens);
  }
  const ids = scratch.ids;
  const starts = scratch.starts;
  let runs = 0;
  const totals = lexicon.counts();
  let twice = false;
  scratch.runs.clear();
  scratch.runs.reserve(tokens);
  forEachRun(lexicon, scratch.runs, doc, (id, at) => {
    ids[runs] = id;
    starts[runs++] = at;
    if (totals.add(id) > 1) twice = true;
  });
  if (!twice) return null;
  if (scratch.marks.length < tokens) scratch.marks = new Uint8Array(tokens);
  const marks = scratch.marks;
  marks.fill(0, 0, tokens);
  const seen = lexicon.counts();
  const norms = lexicon.norms;
  const tokenIds = store.tokens;
  for (let r = 0; r < runs; r++) {
    const id = ids[r] as number;
    const count = seen.add(id);
    if (count <= 1) continue;
    const start = starts[r] as number;
    const inSource = source
      ? source.runCount(
          norms[tokenIds[start] as number] as number,
          norms[tokenIds[start + 1] as number] as number,
          norms[tokenIds[start + 2] as number] as number,
          norms[tokenIds[start + 3] as number] as number,
        )
      : 0;
    if (count <= Math.max(inSource, 1)) continue;
    const at = start - first;
    marks.fill(1, at, at + RUN);
  }
  return marks;
}

/**
 * What a measurement's efficiency works in, kept per lexicon from one measurement to the next so
 * that its arrays are allocated once, not for every content.
 */
interface EfficiencyScratch {
  sentences: SeqInterner;
  segments: Segments;
  runs: QuadIds;
  ids: Int32Array<ArrayBuffer>;
  starts: Int32Array<ArrayBuffer>;
  marks: Uint8Array<ArrayBuffer>;
}

const SCRATCH = new Kept<EfficiencyScratch>("efficiency scratch");

function scratchOf(lexicon: Lexicon): EfficiencyScratch {
  let scratch = lexicon.kept(SCRATCH);
  if (!scratch) {
    scratch = lexicon.putKept(SCRATCH, {
      sentences: new SeqInterner(),
      segments: {
        ids: new Int32Array(64),
        bytes: new Int32Array(64),
        from: new Int32Array(64),
        to: new Int32Array(64),
        count: 0,
      },
      runs: new QuadIds(),
      ids: new Int32Array(256),
      starts: new Int32Array(256),
      marks: new Uint8Array(256),
    });
  }
  return scratch;
}

/** Every run of RUN tokens within a line, in order: its id and where it starts in the store. */
function forEachRun(lexicon: Lexicon, runIds: QuadIds, doc: TextDoc, visit: (id: number, at: number) => void): void {
  const { store } = doc;
  const norms = lexicon.norms;
  const tokens = store.tokens;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    if (b - a < RUN) continue;
    let n0 = norms[tokens[a] as number] as number;
    let n1 = norms[tokens[a + 1] as number] as number;
    let n2 = norms[tokens[a + 2] as number] as number;
    for (let j = a; j + RUN <= b; j++) {
      const n3 = norms[tokens[j + 3] as number] as number;
      visit(runIds.id(n0, n1, n2, n3), j);
      n0 = n1;
      n1 = n2;
      n2 = n3;
    }
  }
}
