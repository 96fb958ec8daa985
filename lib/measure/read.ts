// Reading a content or a source into a document, as its format says (docs/measurement.md,
// "Reading the content"): JSON, base64 (decoded, then read as what it holds) or text.
import { base64Text, isPrintable, looksLikeBase64, unwrapBase64 } from "./base64";
import { type FactIndex, newIndex } from "./facts";
import { indexJson, type JsonDoc, jsonSpecificity } from "./json";
import { readJson } from "./json-read";
import { Kept, type Lexicon } from "./lexicon";
import { TokenStore } from "./scan";
import { opensLikeJson } from "./schema";
import { analyseText, indexTokens, type TextDoc, textSpecificity } from "./text";

export const MEASURE_FORMATS = ["text", "json", "base64", "any"] as const;
export type MeasureFormat = (typeof MEASURE_FORMATS)[number];
export type MeasuredFormat = "text" | "json" | "base64";

export type Doc = { kind: "text"; text: TextDoc } | { kind: "json"; json: JsonDoc };

export interface Decoded {
  format: MeasuredFormat;
  parseable: boolean;
  doc: Doc | null;
  /** The decoded text, where markers are looked for. */
  text: string;
}

/**
 * Reads text as JSON when it opens like JSON and parses (always, when `jsonOnly`), else as text;
 * null when JSON was required and it is not. Its tokens go to `store` (after what it holds).
 */
export function readDoc(
  lexicon: Lexicon,
  text: string,
  jsonOnly: boolean,
  store = new TokenStore(lexicon),
): Doc | null {
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

export function decode(lexicon: Lexicon, content: string, format: MeasureFormat, store: TokenStore): Decoded {
  const run = format === "text" || format === "json" ? content : unwrapBase64(content);
  if (format === "base64" || (format === "any" && looksLikeBase64(run))) {
    const text = base64Text(run);
    if (format === "base64" || (text !== null && isPrintable(text))) {
      if (text === null) return { format: "base64", parseable: false, doc: null, text: "" };
      return { format: "base64", parseable: true, doc: readDoc(lexicon, text, false, store), text };
    }
    if (looksEncoded(run)) return { format: "base64", parseable: false, doc: null, text: "" };
  }
  if (format === "json") {
    // Content its consumer cannot read carries nothing it can use: measured like undecodable base64.
    const doc = readDoc(lexicon, content, true, store);
    return { format: "json", parseable: doc !== null, doc, text: content };
  }
  const doc = readDoc(lexicon, content, false, store);
  return { format: doc?.kind === "json" && format === "any" ? "json" : "text", parseable: true, doc, text: content };
}

/** The source as its passes are read: base64 that decodes to text is that text, anything else as written. */
export function sourceText(source: string, format: MeasureFormat): string {
  const run = format === "text" || format === "json" ? source : unwrapBase64(source);
  if (format === "base64" || (format === "any" && looksLikeBase64(run))) {
    const text = base64Text(run);
    if (text !== null && isPrintable(text)) return text;
  }
  return source;
}

export function indexOf(lexicon: Lexicon, doc: Doc): FactIndex {
  const index = newIndex(lexicon, doc.kind === "json");
  const seen = lexicon.counts();
  if (doc.kind === "json") indexJson(doc.json, index, seen);
  else {
    const { store, firstLine, endLine } = doc.text;
    indexTokens(store, store.lineStart[firstLine] as number, store.lineStart[endLine] as number, index, seen);
  }
  return index;
}

export function specificity(doc: Doc): number {
  return doc.kind === "json" ? jsonSpecificity(doc.json) : textSpecificity(doc.text);
}

/** Token stores this large are not kept for the next measurement. */
const KEPT_STORE_TOKENS = 1 << 18;

/**
 * The token store of a measurement's content and of the originals its markers name, emptied:
 * one per lexicon, kept from one measurement to the next, so that its arrays are allocated
 * once rather than grown anew for every content (unless a content made them very large).
 */
const CONTENT_STORE = new Kept<TokenStore>("content store");

export function contentStore(lexicon: Lexicon): TokenStore {
  let store = lexicon.kept(CONTENT_STORE);
  if (!store || store.tokens.length > KEPT_STORE_TOKENS)
    store = lexicon.putKept(CONTENT_STORE, new TokenStore(lexicon));
  store.clear();
  return store;
}
