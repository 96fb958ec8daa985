// How a fact of a source is shown: the text lost and recoverable examples and the facts ledger
// give for it, as the source states it.
import { type FactTable, SHOW_LEAF, SHOW_LINE, SHOW_TOKEN } from "./facts";
import type { TokenInfo } from "./lexicon";
import type { Doc } from "./read";

const MAX_ERROR_LINE_CHARS = 160;

/** A fact as the source states it: for lost and recoverable examples, and the facts ledger. */
export function display(facts: FactTable, f: number, source: Doc): string {
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
