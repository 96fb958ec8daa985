// The measurement as it was before the scanner rewrite (floorline-facts/1, string tokens), kept
// as the oracle the rewrite is compared with, bit for bit (test/unit/measure/oracle.test.ts).
// Measured density (shared/API.md, "Measured density"; the method: docs/measurement.md).
// One pure function, the same in the server and in the SDKs: content (and the chain's
// source) in, parseability, schema validity, density and the facts a pass kept, can get
// back from a cached original, or lost, out. Pure code with relative imports only, so the
// TypeScript SDK compiles it as it is and the Python SDK ports it line by line.
import { decodeBase64, decodeUtf8, looksLikeBase64 } from "./base64";
import { type Fact, type FactIndex, FactSet, states } from "./facts";
import {
  addJsonFacts,
  analyseJson,
  fieldHolds,
  indexJson,
  type JsonDoc,
  jsonSpecificity,
  jsonUnits,
  opensLikeJson,
  parseJson,
} from "./json";
import { findMarkers } from "./markers";
import { addTextFacts, analyseText, indexText, type TextDoc, textSpecificity } from "./text";

/** The method's name and version; any change to a number it gives needs a new version. */
export const METHOD = "floorline-facts/1";
export const MEASURE_FORMATS = ["text", "json", "base64", "any"] as const;
export type MeasureFormat = (typeof MEASURE_FORMATS)[number];
export type MeasuredFormat = "text" | "json" | "base64";

/** Lost facts listed in an answer, at most. */
export const MAX_LOST_EXAMPLES = 20;
/** Cached originals consulted per content, at most, so a content full of markers stays linear. */
export const MAX_ORIGINALS = 32;
/** A recoverable fact counts half: it is one retrieval away, and only while the cache keeps it. */
export const RECOVERABLE_CREDIT = 0.5;
/**
 * A repeated sentence (or JSON leaf) costs more than the room it takes: repetition is how a
 * compressor that has run out of things to say fills its budget, so content made of repeats
 * must not reach the score of content that says each thing once.
 */
export const REPEAT_COST = 1.5;

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

function readDoc(text: string, jsonOnly: boolean): { doc: Doc | null; parsed: boolean } {
  if (jsonOnly || opensLikeJson(text)) {
    const parsed = parseJson(text);
    if (parsed.ok) return { doc: { kind: "json", json: analyseJson(parsed.value) }, parsed: true };
  }
  return { doc: { kind: "text", text: analyseText(text) }, parsed: false };
}

function decode(content: string, format: MeasureFormat): Decoded {
  const asBase64 = format === "base64" || (format === "any" && looksLikeBase64(content));
  if (asBase64) {
    const bytes = decodeBase64(content);
    const text = bytes ? decodeUtf8(bytes) : null;
    if (text === null) return { format: "base64", parseable: false, doc: null, text: "" };
    return { format: "base64", parseable: true, doc: readDoc(text, false).doc, text };
  }
  if (format === "json") {
    const { doc, parsed } = readDoc(content, true);
    // Content its consumer cannot read carries nothing it can use: measured like undecodable base64.
    return { format: "json", parseable: parsed, doc: parsed ? doc : null, text: content };
  }
  const { doc } = readDoc(content, false);
  return { format: doc?.kind === "json" && format === "any" ? "json" : "text", parseable: true, doc, text: content };
}

function indexOf(doc: Doc): FactIndex {
  const index: FactIndex = { keys: new Set(), json: doc.kind === "json" };
  if (doc.kind === "json") indexJson(doc.json, index);
  else indexText(doc.text, index);
  return index;
}

function lookup(originals: Originals | undefined, hash: string): string | undefined {
  if (!originals) return undefined;
  const found = typeof originals === "function" ? originals(hash) : originals.get(hash);
  return found ?? undefined;
}

/** 1 minus the share of the content's bytes that is padding (a repeat) or filler (states nothing of the source). */
function efficiency(doc: Doc, source: Doc | null, sourceKeys: Set<string> | null): number {
  if (doc.kind === "json") {
    // Records repeat values as a matter of course; only a source can say how often is too often.
    if (!source) return 1;
    const allowed = new Map<string, number>();
    if (source?.kind === "json")
      for (const u of jsonUnits(source.json)) allowed.set(u.id, (allowed.get(u.id) ?? 0) + 1);
    const seen = new Map<string, number>();
    let total = 0;
    let padding = 0;
    for (const u of jsonUnits(doc.json)) {
      total += u.bytes;
      const count = (seen.get(u.id) ?? 0) + 1;
      seen.set(u.id, count);
      const limit = allowed.get(u.id) ?? 1;
      if (count > Math.max(limit, 1)) padding += u.bytes * REPEAT_COST;
    }
    return total === 0 ? 1 : clamp01(1 - padding / total);
  }
  const inSource = new Map<string, number>();
  if (source?.kind === "text")
    for (const seg of source.text.segments) inSource.set(seg.norm, (inSource.get(seg.norm) ?? 0) + 1);
  const seen = new Map<string, number>();
  let total = 0;
  let wasted = 0;
  for (const seg of doc.text.segments) {
    total += seg.bytes;
    const count = (seen.get(seg.norm) ?? 0) + 1;
    seen.set(seg.norm, count);
    const fromSource = inSource.get(seg.norm) ?? 0;
    if (count > Math.max(fromSource, 1)) {
      wasted += seg.bytes * REPEAT_COST;
      continue;
    }
    if (!sourceKeys || fromSource > 0) continue;
    let hits = false;
    for (const t of seg.tokens) {
      if (t.kind === "hash") hits = true;
      for (const key of t.index) if (sourceKeys.has(key)) hits = true;
      if (hits) break;
    }
    if (!hits) wasted += seg.bytes;
  }
  return total === 0 ? 0 : clamp01(1 - wasted / total);
}

const clamp01 = (x: number) => (x < 0 ? 0 : Math.min(x, 1));

/** Rounds to 4 decimals, half up, with + - * / and floor only, so every platform agrees. */
export function roundScore(x: number): number {
  if (!(x > 0)) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 10000 + 0.5) / 10000;
}

export function measureDetailed(content: string, options: MeasureOptions = {}): DetailedMeasurement {
  const format = options.format ?? "any";
  const required = options.requiredFields ?? [];
  const decoded = decode(content, format);
  const doc = decoded.doc;

  let schema_valid: boolean | null = null;
  if (required.length > 0) {
    schema_valid = doc?.kind === "json" && required.every((field) => fieldHolds(doc.json.root, field));
  }

  const hasSource = options.source !== undefined && options.source !== null;
  if (!hasSource) {
    const density = !doc
      ? 0
      : (doc.kind === "json" ? jsonSpecificity(doc.json) : textSpecificity(doc.text)) * efficiency(doc, null, null);
    return answer(decoded, schema_valid, density, null, [], []);
  }

  const sourceDoc = readDoc(options.source as string, false).doc as Doc;
  const set = new FactSet();
  if (sourceDoc.kind === "json") addJsonFacts(sourceDoc.json, set);
  else addTextFacts(sourceDoc.text, set);
  const facts = set.facts;

  const index = doc ? indexOf(doc) : null;
  const originals: { hash: string; index: FactIndex }[] = [];
  if (doc && options.originals) {
    for (const hash of findMarkers(decoded.text, MAX_ORIGINALS)) {
      const text = lookup(options.originals, hash);
      const found = text === undefined ? null : readDoc(text, false).doc;
      if (found) originals.push({ hash, index: indexOf(found) });
    }
  }

  let total = 0;
  let kept = 0;
  const counts: FactCounts = { in_source: 0, retained: 0, recoverable: 0, lost: 0 };
  const lost: Fact[] = [];
  const recoverable: { fact: string; hash: string }[] = [];
  for (const fact of facts) {
    total += fact.weight;
    if (fact.specific) counts.in_source++;
    if (index && states(index, fact)) {
      kept += fact.weight;
      if (fact.specific) counts.retained++;
      continue;
    }
    const from = originals.find((o) => states(o.index, fact));
    if (from) {
      kept += fact.weight * RECOVERABLE_CREDIT;
      if (fact.specific) {
        counts.recoverable++;
        if (recoverable.length < MAX_LOST_EXAMPLES) recoverable.push({ fact: fact.display, hash: from.hash });
      }
      continue;
    }
    if (fact.specific) {
      counts.lost++;
      lost.push(fact);
    }
  }

  let density = 0;
  if (doc) {
    if (total === 0) {
      // A source that states nothing specific leaves nothing to lose: the content is judged on its own.
      density =
        (doc.kind === "json" ? jsonSpecificity(doc.json) : textSpecificity(doc.text)) * efficiency(doc, null, null);
    } else {
      const sourceKeys = new Set<string>();
      for (const fact of facts) for (const key of fact.need) sourceKeys.add(key);
      density = (kept / total) * efficiency(doc, sourceDoc, sourceKeys);
    }
  }
  // Heaviest first, then in the source's order (the sort is stable).
  const lost_examples = lost
    .sort((a, b) => b.weight - a.weight)
    .slice(0, MAX_LOST_EXAMPLES)
    .map((f) => f.display);
  return answer(decoded, schema_valid, density, counts, lost_examples, recoverable);
}

/** The answer in the contract's field order. */
function answer(
  decoded: Decoded,
  schema_valid: boolean | null,
  density: number,
  facts: FactCounts | null,
  lost_examples: string[],
  recoverable_examples: { fact: string; hash: string }[],
): DetailedMeasurement {
  return {
    format: decoded.format,
    parseable: decoded.parseable,
    schema_valid,
    semantic_density_score: roundScore(density),
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
