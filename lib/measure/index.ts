// Measured density (the method and its answer: docs/measurement.md).
// One pure function, the same in the server and in the SDKs: content (and the chain's
// source) in, parseability, schema validity, density and the facts a pass kept, can get
// back from a cached original, or lost, out. Pure code with relative imports only, so the
// TypeScript SDK compiles it as it is and the Python SDK ports it line by line.
// Longer than most modules on purpose: it is the method's one entry, composing the rules in the
// order docs/measurement.md gives them, and reads top to bottom as that page does.
import { jsonEfficiency, textEfficiency } from "./efficiency";
import { display } from "./display";
import { orderEvidence, orderFactor } from "./order";
import { type FactIndex, SALIENT_NEED, SALIENT_SHARE, SHOW_LINE } from "./facts";
import { Lexicon } from "./lexicon";
import { findMarkers } from "./markers";
import {
  contentStore,
  type Decoded,
  type Doc,
  decode,
  indexOf,
  type MeasuredFormat,
  type MeasureFormat,
  readDoc,
  sourceText,
  specificity,
} from "./read";
import { fieldHolds, parseJson } from "./schema";
import { misbound } from "./bindings";
import { analyseSource, knownLines, type SourceAnalysis, SourceCache, sourceStats } from "./source";
import { languageOf, phrasingOf } from "./text";

/** The method's name and version; any change to a number it gives needs a new version. */
export const METHOD = "floorline-facts/4";
export { MEASURE_FORMATS, type MeasuredFormat, type MeasureFormat } from "./read";

/** Lost facts listed in an answer, at most. */
export const MAX_LOST_EXAMPLES = 20;
/** Cached originals consulted per content, at most, so a content full of markers stays linear. */
export const MAX_ORIGINALS = 32;
/** A recoverable fact counts half: it is one retrieval away, and only while the cache keeps it. */
export const RECOVERABLE_CREDIT = 0.5;
export { REPEAT_COST } from "./efficiency";

export interface FactCounts {
  in_source: number;
  retained: number;
  recoverable: number;
  lost: number;
}

/**
 * What the score is made of (since floorline-facts/4), each in [0, 1] and rounded as the score:
 * with a source, `coverage` (the weight of the source's facts and context the content states,
 * a recoverable fact at half) and `efficiency`; without one, `specificity` and `efficiency`.
 * When the source reports errors or warnings, `salience` is the share of their entries' weight
 * the content states, and `coverage` weighs it at SALIENT_SHARE. When a text content is long
 * enough to tell and its order costs it, `order` is what its order lets its coverage count for
 * (see order.ts): 0 for a source's words shuffled. The score is the product of
 * coverage and efficiency (or specificity and efficiency) before rounding. Empty when the
 * content cannot be read.
 */
type Components =
  | { coverage: number; efficiency: number; salience?: number; words?: number; values?: number; order?: number }
  | { specificity: number; efficiency: number }
  | Record<string, never>;

export interface Measurement {
  format: MeasuredFormat;
  parseable: boolean;
  schema_valid: boolean | null;
  semantic_density_score: number;
  components: Components;
  facts: FactCounts | null;
  lost_examples: string[];
  method: string;
}

/** Texts of cached originals by the hash a CCR marker names (12 to 64 lowercase hex). */
export type Originals = ((hash: string) => string | undefined | null) | ReadonlyMap<string, string>;

export interface MeasureOptions {
  source?: string | null;
  format?: MeasureFormat;
  requiredFields?: readonly string[];
  originals?: Originals;
}

/**
 * What a measurement against a source read, handed to a caller that asks more of it (the facts
 * ledger, fact-ledger.ts) while it is still valid: inside the measurement, before its lexicon
 * may drop what the content added. Read only.
 */
export interface MeasureView {
  source: SourceAnalysis;
  /** The content's document and what it states; null when it cannot be read. */
  doc: Doc | null;
  index: FactIndex | null;
  /** The cached originals its markers name that could be read, in the markers' order. */
  originals: readonly { hash: string; index: FactIndex }[];
  /** JSON facts may be stated by their values anywhere (no field is required). */
  byValue: boolean;
  /** The content and the source are in two languages (see wordsCount). */
  across: boolean;
}

/** A measurement with what the answer leaves out: which original makes each fact recoverable. */
export interface DetailedMeasurement extends Measurement {
  recoverable_examples: { fact: string; hash: string }[];
}

/** 1 minus the share of the content's bytes that is padding (a repeat) or filler (states nothing of the source). */
function efficiency(
  lexicon: Lexicon,
  doc: Doc,
  source: SourceAnalysis | null,
  byValue = false,
  filler = true,
  misbound: Uint8Array | null = null,
): number {
  if (doc.kind === "json") {
    // Records repeat values as a matter of course; only a source can say how often is too often.
    if (!source) return 1;
    return jsonEfficiency(lexicon, doc.json, source.doc.kind === "json" ? source.doc.json : null, byValue);
  }
  return textEfficiency(lexicon, doc.text, source?.text ?? null, filler ? (source?.keys ?? null) : null, misbound);
}

function lookup(originals: Originals | undefined, hash: string): string | undefined {
  if (!originals) return undefined;
  const found = typeof originals === "function" ? originals(hash) : originals.get(hash);
  return found ?? undefined;
}

/** Rounds to 4 decimals, half up, with + - * / and floor only, so every platform agrees. */
export function roundScore(x: number): number {
  if (!(x > 0)) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 10000 + 0.5) / 10000;
}

/**
 * The lexicon is kept from one measurement to the next, with the analyses of the sources
 * measured in it: a chain's source is measured against with every pass. Ids only ever stand
 * for equal strings, so what the lexicon already holds changes no answer, only the cost. What
 * measurements add for their contents (and the originals their markers name) goes to the
 * lexicon's zone (Lexicon.begin), which the next passes reuse (a chain's passes share most of
 * the tokens its source does not state) and which is taken out whole (Lexicon.rollback) when it
 * holds more than ZONE_LIMIT entries or before a new source is analysed: contents bring tokens
 * no other pass states, and would fill the lexicon. Sources stay, up to LEXICON_LIMIT entries
 * (about a hundred bytes each, and beyond while the same source is measured against), then the
 * lexicon and its analyses are dropped and started afresh. A measurement started from inside
 * another (an `originals` function that measures) gets a lexicon of its own.
 */
const LEXICON_LIMIT = 1 << 18;
/** Entries the zone may hold after a measurement; past it the zone is taken out. */
export const ZONE_LIMIT = 1 << 17;
let shared: SourceCache | null = null;
let busy = false;

/**
 * How many sources were analysed, how many measurements reused an analysis, and the sizes of the
 * kept lexicon and of its zone (for tests and benches).
 */
export function measureStats(): {
  sourcesAnalysed: number;
  sourcesReused: number;
  lexiconSize: number;
  zoneSize: number;
} {
  return { ...sourceStats, lexiconSize: shared?.lexicon.size ?? 0, zoneSize: shared?.lexicon.zoneSize ?? 0 };
}

/** Forgets every token and source seen so far (benches time a first measurement; a worker past its kept heap). */
export function clearMeasureCache(): void {
  if (!busy) shared = null;
}

/**
 * Whether the analysis of `source` (as read in `format`) is kept: a measurement against it
 * analyses nothing. A worker past its kept heap drops what it keeps only before a source that is
 * not, so a large source stays for all the passes measured against it.
 */
export function keepsSource(source: string, format: MeasureFormat = "any"): boolean {
  return shared?.has(sourceText(source, format)) ?? false;
}

/**
 * The measurement with its details; `inspect`, when given, is shown what a measurement against
 * a source read (MeasureView) before it returns.
 */
export function measureDetailed(
  content: string,
  options: MeasureOptions = {},
  inspect?: (view: MeasureView) => void,
): DetailedMeasurement {
  const format = options.format ?? "any";
  const source = options.source === undefined || options.source === null ? null : sourceText(options.source, format);
  if (busy) {
    const lexicon = new Lexicon();
    return measureIn(lexicon, source === null ? null : analyseSource(lexicon, source), content, options, inspect);
  }
  // A lexicon grown past its limit is started afresh, unless it holds this very source: a large
  // source (a 4 MiB log) is worth keeping for the passes measured against it next.
  let cache = shared;
  if (cache && cache.lexicon.size > LEXICON_LIMIT && !(source !== null && cache.has(source))) cache = null;
  cache ??= new SourceCache(new Lexicon());
  shared = cache;
  busy = true;
  try {
    return measureIn(cache.lexicon, source === null ? null : analysisIn(cache, source), content, options, inspect);
  } finally {
    busy = false;
  }
}

/**
 * The analysis of `source` (as read in `format`) that measurements against it use, kept with
 * them: for the facts ledger's list. Its lexicon may change with the next measurement; read it
 * before then.
 */
export function sourceAnalysis(source: string, format: MeasureFormat = "any"): SourceAnalysis {
  const text = sourceText(source, format);
  if (busy) return analyseSource(new Lexicon(), text);
  let cache = shared;
  if (cache && cache.lexicon.size > LEXICON_LIMIT && !cache.has(text)) cache = null;
  cache ??= new SourceCache(new Lexicon());
  shared = cache;
  return analysisIn(cache, text);
}

/** The source's analysis, kept or made: made outside the zone, so that it stays when the zone goes. */
function analysisIn(cache: SourceCache, source: string): SourceAnalysis {
  if (!cache.has(source)) cache.lexicon.rollback();
  return cache.get(source);
}

/** Measures `content` against the analysed source, in the lexicon's zone (taken out past its bound). */
function measureIn(
  lexicon: Lexicon,
  source: SourceAnalysis | null,
  content: string,
  options: MeasureOptions,
  inspect?: (view: MeasureView) => void,
): DetailedMeasurement {
  lexicon.begin();
  let done = false;
  try {
    const measured = measureWith(lexicon, content, options, source, inspect);
    done = true;
    return measured;
  } finally {
    // A measurement that did not finish may have left its tokens half made.
    if (!done || lexicon.zoneSize > ZONE_LIMIT) lexicon.rollback();
    lexicon.release();
  }
}

function measureWith(
  lexicon: Lexicon,
  content: string,
  options: MeasureOptions,
  source: SourceAnalysis | null,
  inspect?: (view: MeasureView) => void,
): DetailedMeasurement {
  const format = options.format ?? "any";
  const required = options.requiredFields ?? [];
  const store = contentStore(lexicon);
  // Lines the source states as they are take its tokens (the same as scanning them again).
  store.known = source ? knownLines(source) : null;
  const decoded = decode(lexicon, content, format, store);
  const doc = decoded.doc;

  let schema_valid: boolean | null = null;
  if (required.length > 0) {
    const parsed = doc?.kind === "json" ? parseJson(decoded.text) : null;
    schema_valid = parsed?.ok === true && required.every((field) => fieldHolds(parsed.value, field));
  }

  if (!source) {
    if (!doc) return answer(decoded, schema_valid, 0, {}, null, [], []);
    const parts = { specificity: specificity(doc), efficiency: efficiency(lexicon, doc, null) };
    return answer(decoded, schema_valid, parts.specificity * parts.efficiency, parts, null, [], []);
  }

  const { facts, doc: sourceDoc } = source;
  const index = doc ? indexOf(lexicon, doc) : null;
  const originals: { hash: string; index: FactIndex }[] = [];
  if (doc && options.originals) {
    for (const hash of findMarkers(decoded.text, MAX_ORIGINALS)) {
      const text = lookup(options.originals, hash);
      const found = text === undefined ? null : readDoc(lexicon, text, false, store);
      if (found) originals.push({ hash, index: indexOf(lexicon, found) });
    }
  }

  // Without a schema to hold it to, JSON may change its shape and keep its values (since /4).
  const byValue = required.length === 0;
  // What the source's words (facts stated by a word, see FactTable.word) count for: in full, or
  // in proportion to the content's phrasing, or across languages by the other facts (since /4).
  const words = wordsCount(doc, source);
  let wordCredit = words.phrasing;
  if (words.across && index) {
    // A translation says the source's words in its own: they count as much as the facts it could
    // keep as they were (numbers, names, paths, options) are kept.
    let valueTotal = 0;
    let valueKept = 0;
    for (let f = 0; f < facts.count; f++) {
      if (facts.word[f] === 1) continue;
      const weight = facts.weight[f] as number;
      valueTotal += weight;
      if (facts.states(index, f, byValue)) valueKept += weight;
    }
    wordCredit = valueTotal > 0 ? valueKept / valueTotal : 0;
  }
  // Facts bound to another record of a text source, and the sentences that bind them (since /4).
  const wrong = doc?.kind === "text" && source.text ? misbound(lexicon, doc.text, source.text.records) : null;
  inspect?.({ source, doc, index, originals, byValue, across: words.across });
  let total = 0;
  let kept = 0;
  // Of which the facts of error and warning entries (see SALIENT_SHARE).
  let salientTotal = 0;
  let salientKept = 0;
  // And of those, the facts of their tokens (not the whole lines): what the gate reads.
  let entryTotal = 0;
  let entryKept = 0;
  const counts: FactCounts = { in_source: 0, retained: 0, recoverable: 0, lost: 0 };
  // The heaviest lost facts, in the source's order among equals: a bounded insertion.
  const lost: number[] = [];
  const recoverable: { fact: string; hash: string }[] = [];
  for (let f = 0; f < facts.count; f++) {
    const weight = facts.weight[f] as number;
    const specific = facts.specific[f] === 1;
    const salient = facts.salient[f] === 1;
    const entry = salient && facts.show[f] !== SHOW_LINE;
    total += weight;
    if (salient) salientTotal += weight;
    if (entry) entryTotal += weight;
    if (specific) counts.in_source++;
    const word = facts.word[f] === 1;
    const stated =
      index !== null && facts.states(index, f, byValue) && !(wrong !== null && facts.misbound(wrong.keys, f));
    if (stated || (word && words.across)) {
      const credit = word ? weight * wordCredit : facts.value[f] === 1 ? weight * words.binding : weight;
      kept += credit;
      if (salient) salientKept += credit;
      if (entry) entryKept += credit;
    }
    if (stated) {
      if (specific) counts.retained++;
      continue;
    }
    // Across languages a word was credited above, stated or not: no original adds to it.
    const from = word && words.across ? undefined : originals.find((o) => facts.states(o.index, f, byValue));
    if (from) {
      kept += weight * RECOVERABLE_CREDIT;
      if (salient) salientKept += weight * RECOVERABLE_CREDIT;
      if (entry) entryKept += weight * RECOVERABLE_CREDIT;
      if (specific) {
        counts.recoverable++;
        if (recoverable.length < MAX_LOST_EXAMPLES)
          recoverable.push({ fact: display(facts, f, sourceDoc), hash: from.hash });
      }
      continue;
    }
    if (!specific) continue;
    counts.lost++;
    if (lost.length === MAX_LOST_EXAMPLES && weight <= (facts.weight[lost[MAX_LOST_EXAMPLES - 1] as number] as number))
      continue;
    let at = lost.length;
    while (at > 0 && (facts.weight[lost[at - 1] as number] as number) < weight) at--;
    lost.splice(at, 0, f);
    if (lost.length > MAX_LOST_EXAMPLES) lost.pop();
  }

  let density = 0;
  let parts: Components = {};
  if (doc) {
    if (total === 0) {
      // A source that states nothing specific leaves nothing to lose: the content is judged on its own.
      const judged = { specificity: specificity(doc), efficiency: efficiency(lexicon, doc, null) };
      density = judged.specificity * judged.efficiency;
      parts = judged;
    } else {
      const judged = {
        coverage: kept / total,
        // Across languages no sentence is the source's: only repeats are judged, not filler.
        efficiency: efficiency(lexicon, doc, source, byValue, !words.across, wrong?.tokens ?? null),
      };
      if (salientTotal > 0 && salientTotal < total) {
        // Error and warning entries weigh at least SALIENT_SHARE of the coverage, the rest the rest.
        const rest = (kept - salientKept) / (total - salientTotal);
        // What the entries state, token by token (a summary rewords their lines): a pass that
        // keeps under SALIENT_NEED of it has lost what the reader came for.
        const salience = entryTotal > 0 ? entryKept / entryTotal : salientKept / salientTotal;
        const gate = Math.min(1, salience / SALIENT_NEED);
        const share = Math.max(SALIENT_SHARE, salientTotal / total);
        judged.coverage = (share * (salientKept / salientTotal) + (1 - share) * rest) * gate;
        parts = { ...judged, salience };
      } else parts = judged;
      // What the source's words counted for, when not in full or across languages.
      if (wordCredit < 1 || words.across) parts = { ...parts, words: wordCredit };
      // And what its values counted for, when not in full.
      if (words.binding < 1) parts = { ...parts, values: words.binding };
      if (doc.kind === "text" && source.text && !words.across) {
        // A text that keeps the source's words but not their order states none of it.
        const evidence = orderEvidence(lexicon, doc.text, source.text.pairs);
        const order = orderFactor(evidence);
        if (order < 1) {
          judged.coverage *= order;
          parts = { ...parts, coverage: judged.coverage, order };
        }
      }
      density = judged.coverage * judged.efficiency;
    }
  }
  const lost_examples = lost.map((f) => display(facts, f, sourceDoc));
  return answer(decoded, schema_valid, density, parts, counts, lost_examples, recoverable);
}

/**
 * How the source's words count in a text content against a text source (since floorline-facts/4):
 * - `across`: the two are in different languages (languageOf): words cannot be compared, and
 *   count in proportion to the other facts kept (see measureWith);
 * - else `phrasing`: a word counts only as much as the content puts its words into phrases,
 *   relative to the source: in full from PHRASING_NEED of the source's phrased share, in
 *   proportion under it. A list or a bag of the source's words keeps every word and states
 *   nothing with them; a terse summary still writes phrases.
 */
function wordsCount(doc: Doc | null, source: SourceAnalysis): { across: boolean; phrasing: number; binding: number } {
  if (doc?.kind !== "text" || !source.phrasing) return { across: false, phrasing: 1, binding: 1 };
  const from = source.phrasing;
  const own = phrasingOf(doc.text);
  // A value counts as much as the content ties its values to words, relative to the source.
  let binding = 1;
  if (from.values >= PHRASING_MIN_WORDS && from.bound > 0) {
    const share = own.values === 0 ? 0 : own.bound / own.values;
    binding = Math.min(1, share / ((from.bound / from.values) * PHRASING_NEED));
  }
  const language = languageOf(doc.text);
  if (source.language > 0 && language > 0 && language !== source.language)
    return { across: true, phrasing: 1, binding };
  if (from.words < PHRASING_MIN_WORDS || from.phrased === 0) return { across: false, phrasing: 1, binding };
  const share = own.words === 0 ? 0 : own.phrased / own.words;
  return { across: false, phrasing: Math.min(1, share / ((from.phrased / from.words) * PHRASING_NEED)), binding };
}

/** Words a source must have before its phrasing is asked of a content. */
const PHRASING_MIN_WORDS = 12;
/** The share of the source's phrased share a content needs for its words to count in full. */
const PHRASING_NEED = 0.5;

/** The answer in the contract's field order. */
function answer(
  decoded: Decoded,
  schema_valid: boolean | null,
  density: number,
  parts: Components,
  facts: FactCounts | null,
  lost_examples: string[],
  recoverable_examples: { fact: string; hash: string }[],
): DetailedMeasurement {
  return {
    format: decoded.format,
    parseable: decoded.parseable,
    schema_valid,
    semantic_density_score: roundScore(density),
    components: Object.fromEntries(Object.entries(parts).map(([name, x]) => [name, roundScore(x)])) as Components,
    facts,
    lost_examples,
    method: METHOD,
    recoverable_examples,
  };
}

/** The answer of `POST /api/v1/measure`, field for field. */
export function measure(content: string, options: MeasureOptions = {}): Measurement {
  const { recoverable_examples: _, ...answer } = measureDetailed(content, options);
  return answer;
}
