// A source's analysis, worked out once and kept: every pass of a chain is measured against the
// chain's source, and everything measuring asks of the source is the same for each of them.
import { type KeySet, SourceText } from "./efficiency";
import { FactTable } from "./facts";
import { addJsonFacts } from "./json";
import type { Lexicon } from "./lexicon";
import { type Doc, readDoc } from "./read";
import { KnownLines } from "./scan";
import { IdSet } from "./tables";
import { addTextFacts, languageOf, type Phrasing, phrasingOf } from "./text";

/**
 * What measuring against a source needs of it, whatever the content: its document, its facts,
 * the keys they need, and (for text) its sentences and runs. The same for every pass of a
 * chain, so it is worked out once per source and kept (see SourceCache).
 */
export interface SourceAnalysis {
  doc: Doc;
  facts: FactTable;
  /** The keys some fact needs. */
  keys: KeySet;
  text: SourceText | null;
  /** For text: its language (languageOf) and its words in phrases (phrasingOf); else 0 and null. */
  language: number;
  phrasing: Phrasing | null;
  /** Its lines by their characters, for the contents read against it (see knownLines). */
  lines?: KnownLines;
}

/** The source's scanned lines, found when first asked for (see KnownLines). */
export function knownLines(source: SourceAnalysis): KnownLines {
  source.lines ??= new KnownLines(source.doc.kind === "text" ? source.doc.text.store : source.doc.json.store);
  return source.lines;
}

export function analyseSource(lexicon: Lexicon, text: string): SourceAnalysis {
  const doc = readDoc(lexicon, text, false) as Doc;
  const facts = new FactTable(lexicon);
  if (doc.kind === "json") addJsonFacts(doc.json, facts);
  else addTextFacts(doc.text, facts);
  const keys = new IdSet();
  const seqs = lexicon.seqs;
  for (let f = 0; f < facts.count; f++) {
    const need = facts.need[f] as number;
    for (let k = seqs.start[need] as number; k < (seqs.start[need + 1] as number); k++) {
      const key = seqs.pool[k] as number;
      keys.add(key);
    }
  }
  const textDoc = doc.kind === "text" ? doc.text : null;
  return {
    doc,
    facts,
    keys,
    text: textDoc ? new SourceText(lexicon, textDoc) : null,
    language: textDoc ? languageOf(textDoc) : 0,
    phrasing: textDoc ? phrasingOf(textDoc) : null,
  };
}

/** How many sources were analysed, and how many times an analysis was reused. */
export const sourceStats = { sourcesAnalysed: 0, sourcesReused: 0 };

/** Characters of sources whose analyses are kept, at most (the oldest used go first). */
const SOURCE_CACHE_CHARS = 8 * 1024 * 1024;

export class SourceCache {
  private readonly byText = new Map<string, SourceAnalysis>();
  private chars = 0;

  constructor(readonly lexicon: Lexicon) {}

  has(text: string): boolean {
    return this.byText.has(text);
  }

  get(text: string): SourceAnalysis {
    const known = this.byText.get(text);
    if (known) {
      sourceStats.sourcesReused++;
      // Map order is use order: the first entry is the one used longest ago.
      this.byText.delete(text);
      this.byText.set(text, known);
      return known;
    }
    sourceStats.sourcesAnalysed++;
    const analysis = analyseSource(this.lexicon, text);
    if (text.length <= SOURCE_CACHE_CHARS) {
      for (const [old] of this.byText) {
        if (this.chars + text.length <= SOURCE_CACHE_CHARS) break;
        this.byText.delete(old);
        this.chars -= old.length;
      }
      this.byText.set(text, analysis);
      this.chars += text.length;
    }
    return analysis;
  }
}
