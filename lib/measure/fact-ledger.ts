// The facts of a chain's source one by one, for the facts ledger (docs/facts.md): which of them
// a content states, which an original its markers name states, and which neither, decided
// exactly as measureDetailed decides them (FactTable.states, the same originals, the same rule
// for words across languages), so the ledger's counts are the measurement's counts. Kept apart
// from index.ts: the measurement answers counts, the ledger needs each fact. It reads what the
// measurement itself read (measureDetailed's MeasureView): the content is decoded once.
import { type FactTable, SALIENT_SHARE, SHOW_LEAF, SHOW_LINE } from "./facts";
import type { TokenInfo } from "./lexicon";
import { display } from "./display";
import type { MeasureFormat } from "./read";
import type { SourceAnalysis } from "./source";
import {
  type DetailedMeasurement,
  type MeasureOptions,
  type MeasureView,
  measureDetailed,
  sourceAnalysis,
} from "./index";

/**
 * Facts a ledger keeps per chain, the heaviest first: a source of a million records has a
 * million facts, and a page that lists them would list noise past the first thousands.
 */
export const MAX_LEDGER_FACTS = 10_000;

/** A fact of the source as the ledger lists it. */
interface SourceFact {
  /** Its identity (what the measurement tells facts apart by), hashed: 16 hex. */
  key: string;
  /** As the source states it (a lost example's text). */
  fact: string;
  /** A token's kind (`number`, `path`, `name`, …), `error_line`, or `json_value`. */
  kind: string;
  /** Its share of what the source's coverage weighs (see salienceOf); the list's order. */
  salience: number;
}

export interface SourceFacts {
  /** At most MAX_LEDGER_FACTS, by salience, then in the order the source first states them. */
  facts: SourceFact[];
  /** Specific facts of the source, all of them (`facts.in_source` of a measurement). */
  inSource: number;
  /** Digest of the listed facts' keys in order: states are comparable only under one digest. */
  digest: string;
}

/** A listed fact's state in one content: LOST, RETAINED, or RECOVERABLE + i for `hashes[i]`. */
export const LOST = 0;
export const RETAINED = 1;
export const RECOVERABLE = 2;

export interface FactStates {
  digest: string;
  /** One per listed fact, in the list's order. */
  states: Uint8Array;
  /** The markers' hashes that states at RECOVERABLE + i name. */
  hashes: string[];
}

interface Listed {
  /** Fact indices of the FactTable, in the list's order. */
  order: Int32Array;
  digest: string;
  inSource: number;
  facts: SourceFact[] | null;
}

/** The list of each analysed source, gone with its analysis. */
const listedOf = new WeakMap<SourceAnalysis, Listed>();

/**
 * Each fact's share of the coverage's weight: its weight over the source's, or, when some but
 * not all of the weight is salient (error and warning entries), the share SALIENT_SHARE (or
 * more) spread over the salient facts by weight and the rest over the others.
 */
function salienceOf(facts: FactTable): Float64Array {
  let total = 0;
  let salientTotal = 0;
  for (let f = 0; f < facts.count; f++) {
    const w = facts.weight[f] as number;
    total += w;
    if (facts.salient[f] === 1) salientTotal += w;
  }
  const out = new Float64Array(facts.count);
  if (total === 0) return out;
  const split = salientTotal > 0 && salientTotal < total;
  const share = Math.max(SALIENT_SHARE, salientTotal / total);
  for (let f = 0; f < facts.count; f++) {
    const w = facts.weight[f] as number;
    if (!split) out[f] = w / total;
    else out[f] = facts.salient[f] === 1 ? (share * w) / salientTotal : ((1 - share) * w) / (total - salientTotal);
  }
  return out;
}

/** What tells fact `f` from every other: its kind of identity and its keys' texts. */
function identity(facts: FactTable, f: number): string {
  const keys = facts.lexicon.keys.strings;
  const a = facts.pathA[f] as number;
  if (a >= 0) return `p\u0001${keys[a]}\u0001${keys[facts.pathB[f] as number]}`;
  const seqs = facts.lexicon.seqs;
  const need = facts.need[f] as number;
  let s = facts.show[f] === SHOW_LINE ? "l" : "t";
  for (let k = seqs.start[need] as number; k < (seqs.start[need + 1] as number); k++)
    s += `\u0001${keys[seqs.pool[k] as number]}`;
  return s;
}

/** FNV-1a, 64 bits as two 32-bit halves, in hex: enough to tell keys apart, and pure. */
function fnv(s: string, h0 = 0x811c9dc5, h1 = 0x01000193): [number, number] {
  let a = h0;
  let b = h1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ (c + i), 0x01000193) >>> 0;
  }
  return [a, b];
}
const hex = ([a, b]: [number, number]) => a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");

function listed(analysis: SourceAnalysis): Listed {
  const known = listedOf.get(analysis);
  if (known) return known;
  const { facts } = analysis;
  const salience = salienceOf(facts);
  const specific: number[] = [];
  for (let f = 0; f < facts.count; f++) if (facts.specific[f] === 1) specific.push(f);
  // Heaviest first; among equals the source's order (the sort is stable).
  specific.sort((x, y) => (salience[y] as number) - (salience[x] as number));
  const order = Int32Array.from(specific.slice(0, MAX_LEDGER_FACTS));
  let h: [number, number] = [0x811c9dc5, 0x01000193];
  for (const f of order) h = fnv(identity(facts, f), h[0], h[1]);
  const made: Listed = { order, digest: hex(h), inSource: specific.length, facts: null };
  listedOf.set(analysis, made);
  return made;
}

function kindOf(facts: FactTable, f: number): string {
  const show = facts.show[f];
  if (show === SHOW_LINE) return "error_line";
  if (show === SHOW_LEAF) return "json_value";
  return (facts.lexicon.infos[facts.shownA[f] as number] as TokenInfo).kind;
}

/** The source's facts as the ledger lists them (the same list, in the same order, every time). */
export function listSourceFacts(source: string, format: MeasureFormat = "any"): SourceFacts {
  const analysis = sourceAnalysis(source, format);
  const made = listed(analysis);
  if (!made.facts) {
    const { facts, doc } = analysis;
    const salience = salienceOf(facts);
    made.facts = Array.from(made.order, (f) => ({
      key: hex(fnv(identity(facts, f))),
      fact: display(facts, f, doc),
      kind: kindOf(facts, f),
      salience: salience[f] as number,
    }));
  }
  return { facts: made.facts, inSource: made.inSource, digest: made.digest };
}

/**
 * Which listed facts the measured content states (RETAINED), which only an original one of its
 * markers names states (RECOVERABLE + the marker's place in `hashes`), and which neither
 * (LOST): for a specific fact, what measureDetailed counts as retained, recoverable and lost.
 */
function statesOf(view: MeasureView): FactStates {
  const { source, index, originals, byValue, across } = view;
  const made = listed(source);
  const states = new Uint8Array(made.order.length);
  const hashes: string[] = [];
  if (!index) return { digest: made.digest, states, hashes };
  const { facts } = source;
  const hashAt = new Map<string, number>();
  for (let i = 0; i < made.order.length; i++) {
    const f = made.order[i] as number;
    if (facts.states(index, f, byValue)) {
      states[i] = RETAINED;
      continue;
    }
    // Across languages the measurement credits the source's words by the other facts kept and
    // follows no original for them (index.ts, wordsCount): such a word is retained or lost.
    if (across && facts.word[f] === 1) continue;
    const from = originals.find((o) => facts.states(o.index, f, byValue));
    if (!from) continue;
    let at = hashAt.get(from.hash);
    if (at === undefined) {
      at = hashes.length;
      hashes.push(from.hash);
      hashAt.set(from.hash, at);
    }
    states[i] = RECOVERABLE + at;
  }
  return { digest: made.digest, states, hashes };
}

/** Measures `content` against its source and gives each listed fact's state from that very measurement. */
export function measureWithFacts(
  content: string,
  options: MeasureOptions & { source: string },
): { measurement: DetailedMeasurement; facts: FactStates } {
  let facts: FactStates | null = null;
  const measurement = measureDetailed(content, options, (view) => {
    facts = statesOf(view);
  });
  // measureDetailed shows every measurement against a source its view.
  if (facts === null) throw new Error("the measurement showed no view of its source");
  return { measurement, facts };
}

/** Each listed fact's state in `content` (see statesOf). */
export function factStates(content: string, options: MeasureOptions & { source: string }): FactStates {
  return measureWithFacts(content, options).facts;
}
