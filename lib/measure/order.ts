// Relations by order (since floorline-facts/4). A text states what it states by putting words
// next to each other: a content that keeps a source's words and numbers but not which of them
// stand together ("coreutils NEWS with its words shuffled") keeps no statement of it, though
// every token of it is there. One question is asked of a text content measured against a text
// source: does the content put the source's neighbouring tokens next to each other more often
// than a random order of its own tokens would?
//
// Any text that says something of its source does, by far: a summary rewords, but keeps
// "advisory lock", "--exit-on-error" next to "abbrechen", a version next to its package. Across
// the development corpus every pass with enough evidence kept at least four times chance;
// shuffled words keep about chance. The test needs evidence: ORDER_MIN_PAIRS neighbouring tokens
// the content shares with the source, else it says nothing.
import type { Lexicon } from "./lexicon";
import { ENDS, INNER } from "./scan";
import { IdMap, IdSet, PairMap } from "./tables";
import type { TextDoc } from "./text";

/** Neighbouring tokens shared with the source a content must have for the test to judge it. */
export const ORDER_MIN_PAIRS = 20;
/**
 * How many times chance a content must keep the source's neighbours to count in full; between
 * chance (1) and this, its coverage is scaled down in proportion, to nothing at chance.
 */
export const ORDER_LIFT = 4;

/** The source's neighbouring tokens (pairs of norms), built once per source. */
export class SourcePairs {
  private readonly pairs = new PairMap();
  private readonly norms = new IdSet();
  /**
   * Per norm, its index among the norms that lead a pair plus one (absent: it leads none), so
   * that its followers are `followers[start[i], start[i + 1])` (CSR). A table of typed arrays,
   * not a Map (every content asks it of each token it shares with the source), nor an array by
   * norm, which grew with the lexicon's ids and made each kept analysis as large.
   */
  private readonly leadOf = new IdMap();
  private leads = 0;
  private readonly start: Int32Array;
  private readonly followers: Int32Array;

  constructor(lexicon: Lexicon, doc: TextDoc) {
    const as: number[] = [];
    const bs: number[] = [];
    forEachNeighbours(lexicon, doc, (a, b) => {
      this.norms.add(a);
      this.norms.add(b);
      if (this.pairs.get(a, b) >= 0) return;
      this.pairs.add(a, b, 0);
      as.push(a);
      bs.push(b);
      if (this.leadOf.get(a) < 0) this.leadOf.set(a, ++this.leads);
    });
    // Followers of each leading norm, back to back.
    this.start = new Int32Array(this.leads + 1);
    for (const a of as) {
      const i = this.leadOf.get(a);
      this.start[i] = (this.start[i] as number) + 1;
    }
    for (let i = 0; i < this.leads; i++) this.start[i + 1] = (this.start[i + 1] as number) + (this.start[i] as number);
    const at = this.start.slice(0, this.leads);
    this.followers = new Int32Array(as.length);
    for (let e = 0; e < as.length; e++) {
      const i = this.leadOf.get(as[e] as number) - 1;
      const slot = at[i] as number;
      at[i] = slot + 1;
      this.followers[slot] = bs[e] as number;
    }
  }

  has(a: number, b: number): boolean {
    return this.pairs.get(a, b) >= 0;
  }

  /** Calls `visit` with each token that follows `a` somewhere in the source. */
  forEachFollower(a: number, visit: (b: number) => void): void {
    const lead = this.leadOf.get(a);
    if (lead < 0) return;
    const i = lead - 1;
    for (let k = this.start[i] as number; k < (this.start[i + 1] as number); k++) visit(this.followers[k] as number);
  }

  /** Whether the source holds the token at all. */
  holds(norm: number): boolean {
    return this.norms.has(norm);
  }
}

/**
 * Visits each two tokens next to each other within a line and a sentence, by their norms, but
 * not two parts of one raw token: a shuffle of words keeps those together.
 */
function forEachNeighbours(lexicon: Lexicon, doc: TextDoc, visit: (a: number, b: number) => void): void {
  const { store } = doc;
  const norms = lexicon.norms;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    for (let k = a; k + 1 < b; k++) {
      // Parts of one raw token ("GNU/Linux") stay together however the words are ordered.
      if (((store.flags[k] as number) & (ENDS | INNER)) !== 0) continue;
      const x = norms[store.tokens[k] as number] as number;
      const y = norms[store.tokens[k + 1] as number] as number;
      if (x >= 0 && y >= 0) visit(x, y);
    }
  }
}

/**
 * What the test found: of the content's neighbouring tokens that both occur in the source
 * (`shared`), how many are neighbours in the source too (`kept`), and how many a random order
 * of the content's tokens would keep on average (`chance`).
 */
interface OrderEvidence {
  shared: number;
  kept: number;
  chance: number;
}

export function orderEvidence(lexicon: Lexicon, content: TextDoc, source: SourcePairs): OrderEvidence {
  // How often the content states each token it shares with the source, and those tokens once
  // each. Counted by norm in the lexicon's reusable counts, not a Map: this runs for every text
  // pass. The chance below is a sum of whole numbers, exact in any order.
  const counts = lexicon.counts();
  const tokens: number[] = [];
  const { store } = content;
  const norms = lexicon.norms;
  let n = 0;
  const from = store.lineStart[content.firstLine] as number;
  const to = store.lineStart[content.endLine] as number;
  for (let k = from; k < to; k++) {
    const norm = norms[store.tokens[k] as number] as number;
    if (norm < 0 || !source.holds(norm)) continue;
    if (counts.add(norm) === 1) tokens.push(norm);
    n++;
  }
  let shared = 0;
  let kept = 0;
  // forEachNeighbours, written out: this loop runs over every content's tokens.
  for (let l = content.firstLine; l < content.endLine; l++) {
    const end = (store.lineStart[l + 1] as number) - 1;
    for (let k = store.lineStart[l] as number; k < end; k++) {
      if (((store.flags[k] as number) & (ENDS | INNER)) !== 0) continue;
      const a = norms[store.tokens[k] as number] as number;
      const b = norms[store.tokens[k + 1] as number] as number;
      if (a < 0 || b < 0 || !counts.has(a) || !counts.has(b)) continue;
      shared++;
      if (source.has(a, b)) kept++;
    }
  }
  if (shared < ORDER_MIN_PAIRS) return { shared, kept, chance: 0 };
  // A random order of these n tokens puts a given two next to each other, at a given place, with
  // probability c(a) c(b) / n²: summed over the source's pairs, the share of places keeping one.
  let chance = 0;
  for (const a of tokens) {
    const ca = counts.get(a);
    source.forEachFollower(a, (b) => {
      if (counts.has(b)) chance += ca * counts.get(b);
    });
  }
  return { shared, kept, chance: (chance / (n * n)) * shared };
}

/**
 * What a content's coverage counts for by its order: 1 without enough evidence or at ORDER_LIFT
 * times chance and above, 0 at chance or below, in proportion between.
 */
export function orderFactor(evidence: OrderEvidence): number {
  if (evidence.shared < ORDER_MIN_PAIRS || evidence.chance <= 0) return 1;
  const lift = evidence.kept / evidence.chance;
  return Math.min(1, Math.max(0, (lift - 1) / (ORDER_LIFT - 1)));
}
