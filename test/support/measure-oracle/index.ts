// A frozen copy of lib/measure as it stood before its speed work (main at 27b0eeb, method
// floorline-facts/3), with the rules of floorline-facts/4 written in plainly (regular
// expressions, whole lines; marked "/4" below): the oracle test/unit/measure/oracle.test.ts
// holds the optimised implementation to, field for field. Never edit it to make a test pass: a
// difference is a change of the method's answers, which needs a new method version.
// Measured density (shared/API.md, "Measured density"; the method: docs/measurement.md).
// One pure function, the same in the server and in the SDKs: content (and the chain's
// source) in, parseability, schema validity, density and the facts a pass kept, can get
// back from a cached original, or lost, out. Pure code with relative imports only, so the
// TypeScript SDK compiles it as it is and the Python SDK ports it line by line.
import { base64Text, isPrintable, looksLikeBase64 } from "./base64";
import { type FactIndex, FactTable, newIndex, SHOW_LEAF, SHOW_LINE, SHOW_TOKEN } from "./facts";
import { addJsonFacts, indexJson, type JsonDoc, jsonSpecificity } from "./json";
import { readJson } from "./json-read";
import { jsonEfficiency, textEfficiency } from "./efficiency";
import type { Counts } from "./intern";
import { Lexicon, type TokenInfo } from "./lexicon";
import { findMarkers } from "./markers";
import { ENDS, INNER, TokenStore } from "./scan";
import { fieldHolds, opensLikeJson, parseJson } from "./schema";
import { addTextFacts, analyseText, indexTokens, type TextDoc, textSpecificity } from "./text";

/** The method's name and version; any change to a number it gives needs a new version. */
export const METHOD = "floorline-facts/4";
export const MEASURE_FORMATS = ["text", "json", "base64", "any"] as const;
export type MeasureFormat = (typeof MEASURE_FORMATS)[number];
export type MeasuredFormat = "text" | "json" | "base64";

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

export interface Measurement {
  format: MeasuredFormat;
  parseable: boolean;
  schema_valid: boolean | null;
  semantic_density_score: number;
  components: Record<string, number>;
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

/** A measurement with what the answer leaves out: which original makes each fact recoverable. */
export interface DetailedMeasurement extends Measurement {
  recoverable_examples: { fact: string; hash: string }[];
}

type Doc = { kind: "text"; text: TextDoc } | { kind: "json"; json: JsonDoc };

interface Decoded {
  format: MeasuredFormat;
  parseable: boolean;
  doc: Doc | null;
  /** The decoded text, where markers are looked for. */
  text: string;
}

/** Reads text as JSON when it opens like JSON and parses (always, when `jsonOnly`), else as text; null when JSON was required and it is not. */
function readDoc(lexicon: Lexicon, text: string, jsonOnly: boolean): Doc | null {
  const store = new TokenStore(lexicon);
  if (jsonOnly || opensLikeJson(text)) {
    const json = readJson(lexicon, store, text);
    if (json) return { kind: "json", json };
    if (jsonOnly) return null;
  }
  return { kind: "text", text: analyseText(store, text) };
}

/**
 * In format `any`, a run of the base64 alphabet that does not decode to text is base64 (of
 * bytes no reader can use) when it looks like encoded bytes: 64 characters or more, padding,
 * a `+` or `/`, or capitals, small letters and digits all mixed in. Anything else, a word or
 * a key, is text.
 */
function looksEncoded(s: string): boolean {
  if (s.length >= 64 || s.endsWith("=")) return true;
  let upper = false;
  let lower = false;
  let digit = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 43 || c === 47) return true;
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
    else if (c >= 48 && c <= 57) digit = true;
  }
  return upper && lower && digit;
}

/**
 * /4: base64 in lines of one width (a multiple of 4 when there are two or more, the last no
 * longer; LF or CRLF, the last break optional) is the run its lines make.
 */
function unwrapped(s: string, format: MeasureFormat): string {
  if (format === "text" || format === "json" || !s.includes("\n")) return s;
  const lines = s
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.replace(/\r$/, ""));
  const width = lines[0]?.length ?? 0;
  const ok =
    lines.every(
      (line, n) =>
        /^[A-Za-z0-9+/=]+$/.test(line) && (n === lines.length - 1 ? line.length <= width : line.length === width),
    ) &&
    (lines.length === 1 || width % 4 === 0);
  return ok ? lines.join("") : s;
}

function decode(lexicon: Lexicon, written: string, format: MeasureFormat): Decoded {
  const content = unwrapped(written, format);
  if (format === "base64" || (format === "any" && looksLikeBase64(content))) {
    const text = base64Text(content);
    if (format === "base64" || (text !== null && isPrintable(text))) {
      if (text === null) return { format: "base64", parseable: false, doc: null, text: "" };
      return { format: "base64", parseable: true, doc: readDoc(lexicon, text, false), text };
    }
    if (looksEncoded(content)) return { format: "base64", parseable: false, doc: null, text: "" };
  }
  if (format === "json") {
    // Content its consumer cannot read carries nothing it can use: measured like undecodable base64.
    const doc = readDoc(lexicon, written, true);
    return { format: "json", parseable: doc !== null, doc, text: written };
  }
  const doc = readDoc(lexicon, written, false);
  return { format: doc?.kind === "json" && format === "any" ? "json" : "text", parseable: true, doc, text: written };
}

/** The source as its passes are read: base64 that decodes to text is that text, anything else as written. */
function sourceText(written: string, format: MeasureFormat): string {
  const source = unwrapped(written, format);
  if (format === "base64" || (format === "any" && looksLikeBase64(source))) {
    const text = base64Text(source);
    if (text !== null && isPrintable(text)) return text;
  }
  return written;
}

function indexOf(lexicon: Lexicon, doc: Doc): FactIndex {
  const index = newIndex(lexicon, doc.kind === "json");
  const seen = lexicon.counts();
  if (doc.kind === "json") indexJson(doc.json, index, seen);
  else {
    const { store, firstLine, endLine } = doc.text;
    indexTokens(store, store.lineStart[firstLine] as number, store.lineStart[endLine] as number, index, seen);
  }
  return index;
}

function lookup(originals: Originals | undefined, hash: string): string | undefined {
  if (!originals) return undefined;
  const found = typeof originals === "function" ? originals(hash) : originals.get(hash);
  return found ?? undefined;
}

function specificity(doc: Doc): number {
  return doc.kind === "json" ? jsonSpecificity(doc.json) : textSpecificity(doc.text);
}

/** 1 minus the share of the content's bytes that is padding (a repeat) or filler (states nothing of the source). */
function efficiency(
  lexicon: Lexicon,
  doc: Doc,
  source: Doc | null,
  sourceKeys: Counts | null,
  byValue = false,
): number {
  if (doc.kind === "json") {
    // Records repeat values as a matter of course; only a source can say how often is too often.
    if (!source) return 1;
    return jsonEfficiency(lexicon, doc.json, source.kind === "json" ? source.json : null, byValue);
  }
  return textEfficiency(lexicon, doc.text, source?.kind === "text" ? source.text : null, sourceKeys);
}

/** Rounds to 4 decimals, half up, with + - * / and floor only, so every platform agrees. */
export function roundScore(x: number): number {
  if (!(x > 0)) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 10000 + 0.5) / 10000;
}

const MAX_ERROR_LINE_CHARS = 160;

/** A fact as the source states it, for lost and recoverable examples. */
function display(facts: FactTable, f: number, source: Doc): string {
  const lexicon = facts.lexicon;
  const show = facts.show[f];
  if (show === SHOW_LEAF && source.kind === "json") return source.json.display(facts.shownA[f] as number);
  if (show === SHOW_LINE) {
    const store = source.kind === "json" ? source.json.store : source.text.store;
    const line = store.lineString(facts.shownA[f] as number).trim();
    return line.length > MAX_ERROR_LINE_CHARS ? `${line.slice(0, MAX_ERROR_LINE_CHARS)}...` : line;
  }
  if (show !== SHOW_TOKEN) return "";
  const t = lexicon.infos[facts.shownA[f] as number] as TokenInfo;
  const text = t.key ? `${t.key}=${t.text}` : t.text;
  const nextId = facts.shownB[f] as number;
  const next = nextId >= 0 ? (lexicon.infos[nextId] as TokenInfo) : null;
  // A bare number says little without what it counts: "10,000 jobs", not "10,000".
  if (t.kind === "number" && !t.key && facts.shownOpen[f] === 1 && next && next.kind === "keyword")
    return `${text} ${next.text}`;
  return text;
}

/**
 * The lexicon is kept from one measurement to the next: a chain's source is measured again with
 * every pass, and texts share their words. Ids only ever stand for equal strings, so what the
 * lexicon already holds changes no answer, only the cost. It is dropped once it holds more than
 * LEXICON_LIMIT entries (about a hundred bytes each), so a process keeps a few tens of MB at
 * most between measurements; a measurement started from inside another (an `originals`
 * function that measures) gets its own.
 */
const LEXICON_LIMIT = 1 << 18;
let shared: Lexicon | null = null;
let busy = false;

/** Forgets every token seen so far (for benches that time a first measurement). */
export function clearMeasureCache(): void {
  if (!busy) shared = null;
}

export function measureDetailed(content: string, options: MeasureOptions = {}): DetailedMeasurement {
  if (busy) return measureWith(new Lexicon(), content, options);
  const lexicon = shared ?? new Lexicon();
  shared = lexicon;
  busy = true;
  try {
    return measureWith(lexicon, content, options);
  } finally {
    lexicon.release();
    if (lexicon.size > LEXICON_LIMIT) shared = null;
    busy = false;
  }
}

function measureWith(lexicon: Lexicon, content: string, options: MeasureOptions): DetailedMeasurement {
  const format = options.format ?? "any";
  const required = options.requiredFields ?? [];
  const decoded = decode(lexicon, content, format);
  const doc = decoded.doc;

  let schema_valid: boolean | null = null;
  if (required.length > 0) {
    const parsed = doc?.kind === "json" ? parseJson(decoded.text) : null;
    schema_valid = parsed?.ok === true && required.every((field) => fieldHolds(parsed.value, field));
  }

  const hasSource = options.source !== undefined && options.source !== null;
  if (!hasSource) {
    // /4: the parts of the score travel with it as `components`.
    if (!doc) return answer(decoded, schema_valid, 0, {}, null, [], []);
    const s = specificity(doc);
    const e = efficiency(lexicon, doc, null, null);
    return answer(decoded, schema_valid, s * e, { specificity: s, efficiency: e }, null, [], []);
  }

  const sourceDoc = readDoc(lexicon, sourceText(options.source as string, format), false) as Doc;
  const facts = new FactTable(lexicon);
  if (sourceDoc.kind === "json") addJsonFacts(sourceDoc.json, facts);
  else addTextFacts(sourceDoc.text, facts);

  const index = doc ? indexOf(lexicon, doc) : null;
  const originals: { hash: string; index: FactIndex }[] = [];
  if (doc && options.originals) {
    for (const hash of findMarkers(decoded.text, MAX_ORIGINALS)) {
      const text = lookup(options.originals, hash);
      const found = text === undefined ? null : readDoc(lexicon, text, false);
      if (found) originals.push({ hash, index: indexOf(lexicon, found) });
    }
  }

  // /4: without required fields, a JSON fact is also stated by its value's keys, wherever they are.
  const byValue = (options.requiredFields ?? []).length === 0;
  let total = 0;
  let kept = 0;
  // /4: the same sums over the facts of error and warning entries, and over those but whole lines.
  const salient = { total: 0, kept: 0 };
  const entry = { total: 0, kept: 0 };
  const credit = (f: number, weight: number) => {
    kept += weight;
    if (!facts.salient.has(f)) return;
    salient.kept += weight;
    if (facts.show[f] !== SHOW_LINE) entry.kept += weight;
  };
  const counts: FactCounts = { in_source: 0, retained: 0, recoverable: 0, lost: 0 };
  // The heaviest lost facts, in the source's order among equals: a bounded insertion.
  const lost: number[] = [];
  const recoverable: { fact: string; hash: string }[] = [];
  for (let f = 0; f < facts.count; f++) {
    const weight = facts.weight[f] as number;
    const specific = facts.specific[f] === 1;
    total += weight;
    if (facts.salient.has(f)) {
      salient.total += weight;
      if (facts.show[f] !== SHOW_LINE) entry.total += weight;
    }
    if (specific) counts.in_source++;
    if (index && facts.states(index, f, byValue)) {
      credit(f, weight);
      if (specific) counts.retained++;
      continue;
    }
    const from = originals.find((o) => facts.states(o.index, f, byValue));
    if (from) {
      credit(f, weight * RECOVERABLE_CREDIT);
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
  let components: Record<string, number> = {};
  if (doc) {
    if (total === 0) {
      // A source that states nothing specific leaves nothing to lose: the content is judged on its own.
      const s = specificity(doc);
      const e = efficiency(lexicon, doc, null, null);
      density = s * e;
      components = { specificity: s, efficiency: e };
    } else {
      const sourceKeys = lexicon.counts();
      const seqs = lexicon.seqs;
      for (let f = 0; f < facts.count; f++) {
        const need = facts.need[f] as number;
        for (let k = seqs.start[need] as number; k < (seqs.start[need + 1] as number); k++)
          sourceKeys.add(seqs.pool[k] as number);
      }
      const e = efficiency(lexicon, doc, sourceDoc, sourceKeys, byValue);
      let coverage = kept / total;
      components = { coverage, efficiency: e };
      // /4 salience: entries weigh at least half the coverage, and a pass keeping under half of
      // what their tokens state keeps that much less of it.
      if (salient.total > 0 && salient.total < total) {
        const share = Math.max(0.5, salient.total / total);
        const rest = (kept - salient.kept) / (total - salient.total);
        const salience = entry.total > 0 ? entry.kept / entry.total : salient.kept / salient.total;
        coverage = (share * (salient.kept / salient.total) + (1 - share) * rest) * Math.min(1, salience / 0.5);
        components = { coverage, efficiency: e, salience };
      }
      // /4 order: a text content no better ordered than chance keeps nothing of a text source.
      if (doc.kind === "text" && sourceDoc.kind === "text") {
        const order = orderOf(doc.text, sourceDoc.text);
        if (order < 1) {
          coverage *= order;
          components = { ...components, coverage, order };
        }
      }
      density = coverage * e;
    }
  }
  const lost_examples = lost.map((f) => display(facts, f, sourceDoc));
  return answer(decoded, schema_valid, density, components, counts, lost_examples, recoverable);
}

/** The answer in the contract's field order. */
function answer(
  decoded: Decoded,
  schema_valid: boolean | null,
  density: number,
  components: Record<string, number>,
  facts: FactCounts | null,
  lost_examples: string[],
  recoverable_examples: { fact: string; hash: string }[],
): DetailedMeasurement {
  const rounded: Record<string, number> = {};
  for (const [name, x] of Object.entries(components)) rounded[name] = roundScore(x);
  return {
    format: decoded.format,
    parseable: decoded.parseable,
    schema_valid,
    semantic_density_score: roundScore(density),
    components: rounded,
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

/** /4: each two tokens next to each other in a line and a sentence, by their norms. */
function neighbours(doc: TextDoc): [number, number][] {
  const { store } = doc;
  const infos = store.lexicon.infos;
  const out: [number, number][] = [];
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    for (let k = store.lineStart[l] as number; k + 1 < (store.lineStart[l + 1] as number); k++) {
      // Not across a sentence's end, nor between two parts of one raw token ("GNU/Linux").
      if ((store.flags[k] as number) & (ENDS | INNER)) continue;
      const a = (infos[store.tokens[k] as number] as TokenInfo).norm;
      const b = (infos[store.tokens[k + 1] as number] as TokenInfo).norm;
      if (a >= 0 && b >= 0) out.push([a, b]);
    }
  }
  return out;
}

/**
 * /4: what a text content's order lets its coverage count for. Of its neighbouring tokens both
 * found in the source's neighbouring pairs (at least 20 of them, else 1), count those that are
 * neighbours in the source too (kept), against what a random order of the content's shared
 * tokens would keep: for each distinct pair of the source, c(a)·c(b)/n² per neighbouring place.
 * Four times chance or more counts fully, chance or less not at all, linearly between.
 */
function orderOf(content: TextDoc, source: TextDoc): number {
  const sourcePairs = neighbours(source);
  const inSource = new Set(sourcePairs.flat());
  const pairSet = new Set(sourcePairs.map(([a, b]) => `${a},${b}`));
  const { store } = content;
  const infos = store.lexicon.infos;
  const count = new Map<number, number>();
  for (let k = store.lineStart[content.firstLine] as number; k < (store.lineStart[content.endLine] as number); k++) {
    const norm = (infos[store.tokens[k] as number] as TokenInfo).norm;
    if (norm >= 0 && inSource.has(norm)) count.set(norm, (count.get(norm) ?? 0) + 1);
  }
  const shared = neighbours(content).filter(([a, b]) => count.has(a) && count.has(b));
  if (shared.length < 20) return 1;
  const kept = shared.filter(([a, b]) => pairSet.has(`${a},${b}`)).length;
  const n = [...count.values()].reduce((x, y) => x + y, 0);
  let chance = 0;
  for (const pair of pairSet) {
    const [a, b] = pair.split(",").map(Number) as [number, number];
    chance += ((count.get(a) ?? 0) * (count.get(b) ?? 0)) / (n * n);
  }
  chance *= shared.length;
  if (chance <= 0) return 1;
  return Math.min(1, Math.max(0, (kept / chance - 1) / 3));
}
