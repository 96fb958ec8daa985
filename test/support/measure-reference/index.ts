// Long because it is the whole method written plainly in one place; being plain is what makes
// it long (text.ts holds the reading of a text).
// The reference implementation of floorline-facts/4: the method of docs/measurement.md written
// to be read, top to bottom, in the order the docs state it. lib/measure/ is the fast
// implementation (interned ids, typed arrays, a lexicon kept between measurements, rollback);
// test/unit/measure/reference.test.ts holds it to this one, field for field, on the labelled
// chains, the corpus of real content, the docs' worked examples and generated cases. To change
// the method, change it here first, plainly, then make the fast code agree (docs/measurement.md,
// "Making a new version").
//
// Plain means: strings, arrays, Maps and Sets; every source is read anew for every measurement;
// nothing is kept from one measurement to the next. From lib/measure it imports only what
// defines the method's words rather than how fast they are read: the token classification
// (text.ts says which), the JSON grammar and required fields (schema.ts), CCR markers
// (markers.ts) and strict base64 and UTF-8 (base64.ts). Every weight, share and threshold is
// written here again, so that a change to one in lib/measure shows as a difference.
import { base64Text, isPrintable, looksLikeBase64, unwrapBase64 } from "@/lib/measure/base64";
import { asciiLower, utf8Length } from "@/lib/measure/chars";
import { findMarkers } from "@/lib/measure/markers";
import { fieldHolds, type JValue, opensLikeJson, parseJson } from "@/lib/measure/schema";
import { DETAIL_LEVELS, ERROR_LEVELS, LEVEL_WORDS, WARNING_LEVELS } from "@/lib/measure/words";
import {
  bytesOf,
  classifyRaw,
  errorLevel,
  halves,
  isTimeKind,
  isValue,
  type Line,
  languageOf,
  logLead,
  norm,
  opensError,
  phrasingOf,
  readLines,
  type Tok,
  valueShape,
  wordLike,
} from "./text";

export const METHOD = "floorline-facts/4";

// The method's numbers, each where the docs state it.
/** "Facts": context (keywords, JSON key paths) is worth this much of a fact. */
const CONTEXT_WEIGHT = 0.2;
/** "Facts": an error line is a fact of weight 2 of its own. */
const ERROR_LINE_WEIGHT = 2;
/** "Facts": a JSON string of more tokens than this counts the facts of its text. */
const SHORT_STRING_TOKENS = 8;
/** "Facts": a log line's time and level are among its first four tokens, a level in capitals among ten. */
const LEAD = 4;
const CAPITAL_LEVEL_LEAD = 10;
/** "Retained, recoverable, lost": markers followed, lost facts listed, credit of a recoverable fact. */
const MAX_ORIGINALS = 32;
const MAX_LOST_EXAMPLES = 20;
const RECOVERABLE_CREDIT = 0.5;
/** "Density": what a repeat costs per byte, and how long a repeated run is. */
const REPEAT_COST = 1.5;
const RUN = 4;
/** "Density", salience: the entries' least share of the coverage, and the share of them a pass must keep. */
const SALIENT_SHARE = 0.5;
const SALIENT_NEED = 0.5;
/** "Density", order: the evidence it needs, and how many times chance counts fully. */
const ORDER_MIN_PAIRS = 20;
const ORDER_LIFT = 4;
/** "Density", words: the words a source needs before phrasing is asked, and the share of its phrasing a content needs. */
const PHRASING_MIN_WORDS = 12;
const PHRASING_NEED = 0.5;
/** How long a listed JSON leaf and a listed error line may be. */
const MAX_DISPLAY = 120;
const MAX_ERROR_LINE_CHARS = 160;

export type MeasureFormat = "text" | "json" | "base64" | "any";
type MeasuredFormat = "text" | "json" | "base64";
type Originals = ((hash: string) => string | undefined | null) | ReadonlyMap<string, string>;

export interface MeasureOptions {
  source?: string | null;
  format?: MeasureFormat;
  requiredFields?: readonly string[];
  originals?: Originals;
}

interface FactCounts {
  in_source: number;
  retained: number;
  recoverable: number;
  lost: number;
}

export interface DetailedMeasurement {
  format: MeasuredFormat;
  parseable: boolean;
  schema_valid: boolean | null;
  semantic_density_score: number;
  components: Record<string, number>;
  facts: FactCounts | null;
  lost_examples: string[];
  method: string;
  recoverable_examples: { fact: string; hash: string }[];
}

// ============================================================================================
// 1. Reading the content ("Reading the content")
// ============================================================================================

/** A JSON leaf: its key path (`$` at the root), its last key, its value as written and canonical. */
interface Leaf {
  path: string;
  last: string;
  kind: "string" | "number" | "literal";
  /** As written (a string decoded). */
  raw: string;
  /** Canonical: a string trimmed and in lower case, a number written out, a literal as is. */
  value: string;
  /** Its text's lines (a string's lines; a number is one line of its tokens; a literal has none). */
  lines: Line[];
  /** Its specificity without a source ("Without a source"). */
  spec: number;
}

interface JsonDoc {
  leaves: Leaf[];
  /** Every object member met: its key path and its key. */
  members: { path: string; last: string }[];
  emptyContainers: number;
}

type Doc = { kind: "text"; lines: Line[] } | { kind: "json"; json: JsonDoc };

const tokensOf = (lines: readonly Line[]) => lines.flatMap((l) => l.tokens);

/** How many items have each identity, in the order first met (a Map keeps it). */
function countBy<T>(items: readonly T[], id: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(id(item), (counts.get(id(item)) ?? 0) + 1);
  return counts;
}

/** What a JSON content states of a leaf: its path with its value, and its last key with it. */
const leafKey = (leaf: Leaf) => `j:${leaf.path}=${leaf.value}`;
const leafLastKey = (leaf: Leaf) => `j:${leaf.last}=${leaf.value}`;

/**
 * A parsed JSON document's leaves and members, in document order. Key paths: `a.b`, array items
 * folded into `[]` (`items[].sku`), items keeping the key of their array as their last key. A
 * path of nothing but empty keys is the root's, shown as `$`. An object that repeats a key keeps
 * the last value where the first stood (parseJson's Map).
 */
function readJsonDoc(root: JValue): JsonDoc {
  const doc: JsonDoc = { leaves: [], members: [], emptyContainers: 0 };
  const walk = (value: JValue, path: string, empty: boolean, last: string) => {
    if (value instanceof Map) {
      if (value.size === 0) doc.emptyContainers++;
      for (const [name, child] of value) {
        const childPath = empty ? name : `${path}.${name}`;
        doc.members.push({ path: childPath, last: name });
        walk(child, childPath, empty && name === "", name);
      }
    } else if (Array.isArray(value)) {
      if (value.length === 0) doc.emptyContainers++;
      for (const item of value) walk(item, `${path}[]`, false, last);
    } else {
      const leafPath = empty ? "$" : path;
      if (typeof value === "string") {
        // A string is text: its tokens, its German capitals read within it.
        const lines = readLines(value);
        const tokens = tokensOf(lines);
        const spec = tokens.length === 0 ? 0 : tokens.reduce((sum, t) => sum + halves(t), 0) / 2 / tokens.length;
        const canonical = asciiLower(value.trim());
        doc.leaves.push({ path: leafPath, last, kind: "string", raw: value, value: canonical, lines, spec });
      } else if (value !== null && typeof value === "object") {
        // A number is one raw token, classified as written, with no sentence or neighbour around it.
        const tokens = classifyRaw(value.num, false);
        const first = tokens[0];
        const canonical = first?.kind === "number" ? (first.need[0] as string).slice(2) : asciiLower(value.num);
        const lines = [{ text: value.num, tokens }];
        doc.leaves.push({ path: leafPath, last, kind: "number", raw: value.num, value: canonical, lines, spec: 1 });
      } else {
        const raw = value === null ? "null" : value ? "true" : "false";
        const spec = value === null ? 0 : 0.5;
        doc.leaves.push({ path: leafPath, last, kind: "literal", raw, value: raw, lines: [], spec });
      }
    }
  };
  walk(root, "", true, "");
  return doc;
}

/** JSON when it opens like JSON and parses (always, when `jsonOnly`: null if it does not); else text. */
function readDoc(text: string, jsonOnly: boolean): Doc | null {
  if (jsonOnly || opensLikeJson(text)) {
    const parsed = parseJson(text);
    if (parsed.ok) return { kind: "json", json: readJsonDoc(parsed.value) };
    if (jsonOnly) return null;
  }
  return { kind: "text", lines: readLines(text) };
}

/**
 * In format `any`, base64 that does not decode to text is base64 of bytes no reader can use
 * when it looks encoded: 64 characters or more, padding, a `+` or `/`, or capitals, small
 * letters and digits all mixed in. Otherwise it is text (a word, an access key).
 */
function looksEncoded(s: string): boolean {
  if (s.length >= 64 || s.endsWith("=") || /[+/]/.test(s)) return true;
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
}

interface Decoded {
  format: MeasuredFormat;
  parseable: boolean;
  doc: Doc | null;
  /** The text markers are looked for in (base64 decoded). */
  text: string;
}

function decode(content: string, format: MeasureFormat): Decoded {
  // base64(1) and MIME wrap their lines: such a text is the run its lines make.
  const run = format === "text" || format === "json" ? content : unwrapBase64(content);
  if (format === "base64" || (format === "any" && looksLikeBase64(run))) {
    const text = base64Text(run);
    if (format === "base64" || (text !== null && isPrintable(text))) {
      if (text === null) return { format: "base64", parseable: false, doc: null, text: "" };
      return { format: "base64", parseable: true, doc: readDoc(text, false), text };
    }
    if (looksEncoded(run)) return { format: "base64", parseable: false, doc: null, text: "" };
  }
  if (format === "json") {
    const doc = readDoc(content, true);
    return { format: "json", parseable: doc !== null, doc, text: content };
  }
  const doc = readDoc(content, false) as Doc;
  return { format: doc.kind === "json" && format === "any" ? "json" : "text", parseable: true, doc, text: content };
}

/** The source is read as the content is: base64 (as its format says) that decodes to printable text is that text. */
function sourceText(source: string, format: MeasureFormat): string {
  const run = format === "text" || format === "json" ? source : unwrapBase64(source);
  if (format === "base64" || (format === "any" && looksLikeBase64(run))) {
    const text = base64Text(run);
    if (text !== null && isPrintable(text)) return text;
  }
  return source;
}

// ============================================================================================
// 2. The facts of the source ("Facts")
// ============================================================================================

/** A fact of the source, in the order the source first states it. */
interface Fact {
  /** The largest weight any statement of it has. */
  weight: number;
  /** A fact (counted in `facts`) or context (keywords, key paths). */
  specific: boolean;
  /** Stated on a line of an error or warning entry (by any of its statements). */
  salient: boolean;
  /** Whether it is an error line's own fact (salience reads the entries' tokens without these). */
  line: boolean;
  /** Stated by a word (a keyword or a name of letters only): what a language says in its own words. */
  word: boolean;
  /** Stated by a value (a number, hash, version, date, path; no name): what a sentence ties to a word. */
  value: boolean;
  /** The keys a content must state, all of them, to state it as text states it. */
  need: string[];
  /** A JSON fact: what states it in JSON content (its `j:path=value` or `j:last=value`). */
  path: [string, string] | null;
  /** How it is listed among lost or recoverable examples: as its first statement. */
  shown: string;
}

/**
 * The source's facts. A fact states the same thing wherever it appears: a token's fact is known
 * by the keys it needs (in order), an error line's by its line's keys, a JSON fact by its two
 * keys. The first statement fixes its place in the order (which sums run in, and lost examples
 * tie in) and how it is shown; a later one can only raise its weight or make it salient.
 */
class Facts {
  readonly list: Fact[] = [];
  private readonly byToken = new Map<string, Fact>();
  private readonly byLine = new Map<string, Fact>();
  private readonly byPath = new Map<string, Fact>();

  add(kind: "token" | "line" | "path", fact: Fact): void {
    const table = kind === "token" ? this.byToken : kind === "line" ? this.byLine : this.byPath;
    const id = JSON.stringify(kind === "path" ? fact.path : fact.need);
    const known = table.get(id);
    if (!known) {
      table.set(id, fact);
      this.list.push(fact);
      return;
    }
    if (fact.weight > known.weight) known.weight = fact.weight;
    if (fact.salient) known.salient = true;
  }
}

/** The keys of tokens, each once, in the order they come: what a leaf or a line needs. */
function needOf(tokens: readonly Tok[], skip: (t: Tok) => boolean = () => false): string[] {
  const need: string[] = [];
  for (const t of tokens) if (!skip(t)) for (const key of t.need) if (!need.includes(key)) need.push(key);
  return need;
}

/** Logs: at least two non-empty lines, half of them or more led by a time or a level in their first four tokens. */
function isLog(lines: readonly Line[]): boolean {
  const nonEmpty = lines.filter((l) => l.tokens.length > 0);
  const logLike = nonEmpty.filter((l) => l.tokens.slice(0, LEAD).some(logLead));
  return nonEmpty.length >= 2 && logLike.length * 2 >= nonEmpty.length;
}

/**
 * A log line's level, in lower case: the first level word among its first four tokens (an error
 * level also as `level=error`), or written in capitals among its first ten (PostgreSQL's
 * `user@database` comes before its `ERROR`); "" when none.
 */
function levelOf(tokens: readonly Tok[]): string {
  for (const [k, t] of tokens.slice(0, CAPITAL_LEVEL_LEAD).entries()) {
    if (k < LEAD && errorLevel(t)) return "error";
    const lower = asciiLower(t.text);
    if (!LEVEL_WORDS.has(lower)) continue;
    if (k < LEAD || t.text === t.text.toUpperCase()) return ERROR_LEVELS.has(lower) ? "error" : lower;
  }
  return "";
}

/** An error line: it opens like an error report ("Traceback", "TypeError: …"), or, in logs, its level is an error. */
function isErrorLine(tokens: readonly Tok[], logs: boolean): boolean {
  if (tokens.length > 0 && opensError(tokens[0] as Tok)) return true;
  return logs && levelOf(tokens) === "error";
}

/** A diff's own notation outside its hunks (version 4, "A diff's notation is not a fact"). */
const DIFF_NOTATION = [
  "diff --git ",
  "--- ",
  "+++ ",
  "index ",
  "new file mode ",
  "deleted file mode ",
  "old mode ",
  "new mode ",
  "similarity index ",
];

/**
 * In a text with a hunk (a line opening `@@ -`), the lines that state no facts: the hunks'
 * headers, their unchanged context lines (a space, a backslash or nothing first), and the diff's
 * notation around them. `--- a/…` with `+++ b/…` after it is the next file's header, not a line
 * removed and one added. Null when the text has no hunk.
 */
function diffNotation(lines: readonly Line[]): boolean[] | null {
  if (!lines.some((l) => l.text.startsWith("@@ -"))) return null;
  const header = (l: number) => {
    const text = (lines[l] as Line).text;
    if (text.startsWith("--- ")) return lines[l + 1]?.text.startsWith("+++ ") === true;
    return text.startsWith("+++ ") && l > 0 && (lines[l - 1] as Line).text.startsWith("--- ");
  };
  let inHunk = false;
  return lines.map((line, l) => {
    const first = line.text[0];
    if (line.text.startsWith("@@ -")) {
      inHunk = true;
      return true;
    }
    if (inHunk && (first === undefined || first === " " || first === "\\")) return true;
    if (inHunk && (first === "+" || first === "-") && !header(l)) return false;
    inHunk = false;
    return DIFF_NOTATION.some((prefix) => line.text.startsWith(prefix));
  });
}

/** The blanks that open a line, a tab as eight. */
function indentOf(text: string): number {
  let n = 0;
  for (const c of text) {
    if (c === " ") n++;
    else if (c === "\t") n += 8;
    else break;
  }
  return n;
}

/**
 * The lines of error and warning entries (salience): an entry opens on an error line or, in
 * logs, on a line whose level is a warning; the non-empty lines after it belong to it while
 * they are indented more than its first line or, in logs, led by a detail level (DETAIL, HINT,
 * STATEMENT …). An empty line ends it. Null when the text has no entry.
 */
function entryLines(lines: readonly Line[], logs: boolean): boolean[] | null {
  const out: boolean[] = [];
  let inEntry = false;
  let opener = 0;
  for (const line of lines) {
    const indent = indentOf(line.text);
    if (line.tokens.length === 0) inEntry = false;
    else if (isErrorLine(line.tokens, logs) || (logs && WARNING_LEVELS.has(levelOf(line.tokens)))) {
      inEntry = true;
      opener = indent;
    } else inEntry &&= indent > opener || (logs && DETAIL_LEVELS.has(levelOf(line.tokens)));
    out.push(inEntry);
  }
  return out.includes(true) ? out : null;
}

/** A token's fact as it is listed: `key=value`, and a bare number with the word it counts ("10,000 jobs"). */
function showToken(t: Tok, next: Tok | undefined): string {
  const text = t.key ? `${t.key}=${t.text}` : t.text;
  if (t.kind === "number" && !t.key && t.open && next?.kind === "keyword") return `${text} ${next.text}`;
  return text;
}

/** An error line as it is listed: trimmed, and cut. */
function showLine(text: string): string {
  const line = text.trim();
  return line.length > MAX_ERROR_LINE_CHARS ? `${line.slice(0, MAX_ERROR_LINE_CHARS)}...` : line;
}

/**
 * The facts of a text ("Facts"): every token but stop words states a fact (keywords as context,
 * at CONTEXT_WEIGHT). Lines that share a template (their tokens' shapes: words as written, values
 * by their kind) are records of one kind: a value is worth the share of the template's records
 * that state it at that place. An error line is a fact of its own, of weight ERROR_LINE_WEIGHT.
 * `scale` weighs the facts of a JSON string by its share of its path's records.
 */
function addTextFacts(lines: readonly Line[], facts: Facts, scale = 1): void {
  const templateOf = lines.map((l) => (l.tokens.length === 0 ? null : JSON.stringify(l.tokens.map((t) => t.shape))));
  const records = countBy(
    templateOf.filter((t) => t !== null),
    (t) => t,
  );
  // How many records of a template state each value at each place.
  const place = (template: string, k: number, t: Tok) => JSON.stringify([template, k, t.need]);
  const stating = countBy(
    lines.flatMap((line, l) => {
      const template = templateOf[l] as string | null;
      if (template === null || (records.get(template) as number) < 2) return [];
      return line.tokens.flatMap((t, k) => (valueShape(t) ? [place(template, k, t)] : []));
    }),
    (x) => x,
  );
  const logs = isLog(lines);
  const notation = diffNotation(lines);
  const entries = entryLines(lines, logs);
  // A log's time column: each line's stamp is its first time among its first LEAD tokens, worth
  // the share of stamped lines whose stamp states the same keys. Stamps that differ on every
  // line are a sequence, one fact together, whatever the lines' words ("Facts", logs).
  const stampAt = lines.map((l) => (logs ? l.tokens.slice(0, LEAD).findIndex(isTimeKind) : -1));
  const stamps = countBy(
    lines.flatMap((l, i) =>
      (stampAt[i] as number) >= 0 ? [JSON.stringify((l.tokens[stampAt[i] as number] as Tok).need)] : [],
    ),
    (x) => x,
  );
  const stamped = stampAt.filter((k) => k >= 0).length;
  lines.forEach((line, l) => {
    const template = templateOf[l] as string | null;
    if (template === null || notation?.[l] === true) return;
    const size = records.get(template) as number;
    const salient = entries?.[l] === true;
    line.tokens.forEach((t, k) => {
      if (t.need.length === 0) return;
      let weight = t.kind === "keyword" ? CONTEXT_WEIGHT : 1;
      if (size > 1 && valueShape(t)) weight = (stating.get(place(template, k, t)) as number) / size;
      if (stampAt[l] === k) weight = (stamps.get(JSON.stringify(t.need)) as number) / stamped;
      // A link's address (its text says what it is), a quoted key: context where they stand ("Facts").
      if (t.aside) weight = Math.min(weight, CONTEXT_WEIGHT);
      const shown = showToken(t, line.tokens[k + 1]);
      const specific = t.kind !== "keyword";
      const word = wordLike(t);
      facts.add("token", {
        weight: weight * scale,
        specific,
        salient,
        line: false,
        word,
        value: isValue(t),
        need: t.need,
        path: null,
        shown,
      });
    });
    if (isErrorLine(line.tokens, logs)) {
      // A content states an error line only when it states every key of it but its time stamps.
      const need = needOf(line.tokens, isTimeKind);
      const weight = ERROR_LINE_WEIGHT * scale;
      const shown = showLine(line.text);
      const fact = {
        weight,
        specific: true,
        salient: true,
        line: true,
        word: false,
        value: false,
        need,
        path: null,
        shown,
      };
      facts.add("line", fact);
    }
  });
}

/** A JSON leaf as it is listed: `path=value`, a string quoted, cut. */
function showLeaf(leaf: Leaf): string {
  const s = `${leaf.path}=${leaf.kind === "string" ? `"${leaf.raw}"` : leaf.raw}`;
  return s.length > MAX_DISPLAY ? `${s.slice(0, MAX_DISPLAY)}...` : s;
}

/**
 * The facts of a JSON document ("Facts", JSON): every leaf value with its key path, worth the
 * share of the path's records holding that value; a string of more than SHORT_STRING_TOKENS
 * tokens counts the facts of its text instead, scaled the same way. Then every key path, as
 * context: a member's path and key, needing its key's tokens (classified without `key=value`).
 */
function addJsonFacts(doc: JsonDoc, facts: Facts): void {
  const perPath = countBy(doc.leaves, (leaf) => leaf.path);
  const perValue = countBy(doc.leaves, leafKey);
  for (const leaf of doc.leaves) {
    const records = perPath.get(leaf.path) as number;
    const tokens = tokensOf(leaf.lines);
    if (leaf.kind === "string" && tokens.length > SHORT_STRING_TOKENS) {
      addTextFacts(leaf.lines, facts, 1 / records);
      continue;
    }
    const weight = (perValue.get(leafKey(leaf)) as number) / records;
    const path: [string, string] = [leafKey(leaf), leafLastKey(leaf)];
    facts.add("path", {
      weight,
      specific: true,
      salient: false,
      line: false,
      word: false,
      value: false,
      need: needOf(tokens),
      path,
      shown: showLeaf(leaf),
    });
  }
  for (const m of doc.members) {
    const path: [string, string] = [`k:${m.path}`, `k:${m.last}`];
    const need = needOf(classifyRaw(m.last, false, false));
    const fact = {
      weight: CONTEXT_WEIGHT,
      specific: false,
      salient: false,
      line: false,
      word: false,
      value: false,
      need,
      path,
      shown: "",
    };
    facts.add("path", fact);
  }
}

interface Source {
  doc: Doc;
  facts: Fact[];
  /** Every key some fact needs: a content sentence stating none of them is filler. */
  keys: Set<string>;
}

function analyseSource(text: string): Source {
  const doc = readDoc(text, false) as Doc;
  const facts = new Facts();
  if (doc.kind === "json") addJsonFacts(doc.json, facts);
  else addTextFacts(doc.lines, facts);
  return { doc, facts: facts.list, keys: new Set(facts.list.flatMap((f) => f.need)) };
}

// ============================================================================================
// 3. What a content states, and what of the source it keeps ("Retained, recoverable, lost")
// ============================================================================================

interface Index {
  json: boolean;
  keys: Set<string>;
}

/**
 * Every key the content's tokens state (with the looser spellings classification gives them).
 * JSON also states each leaf's `path=value` and `last key=value`, and each member's path and
 * key (`k:`), with its key's tokens.
 */
function indexOf(doc: Doc): Index {
  const keys = new Set<string>();
  const state = (tokens: readonly Tok[]) => {
    for (const t of tokens) for (const key of t.index) keys.add(key);
  };
  if (doc.kind === "text") {
    for (const line of doc.lines) state(line.tokens);
    return { json: false, keys };
  }
  for (const leaf of doc.json.leaves) {
    keys.add(leafKey(leaf));
    keys.add(leafLastKey(leaf));
    for (const line of leaf.lines) state(line.tokens);
  }
  for (const m of doc.json.members) {
    keys.add(`k:${m.path}`);
    keys.add(`k:${m.last}`);
    state(classifyRaw(m.last, false, false));
  }
  return { json: true, keys };
}

/**
 * Whether an index states a fact. A JSON fact in JSON content: its path (or its last key) with
 * the same value; `byValue` (no field is required of the content, since version 4) lets its
 * value's keys state it wherever they stand, as in text. Otherwise every key it needs.
 */
function states(index: Index, fact: Fact, byValue: boolean): boolean {
  if (index.json && fact.path) {
    if (index.keys.has(fact.path[0]) || index.keys.has(fact.path[1])) return true;
    if (!byValue) return false;
  }
  return fact.need.length > 0 && fact.need.every((key) => index.keys.has(key));
}

// ============================================================================================
// 4. Efficiency ("Density"): repeats, repeated runs, filler
// ============================================================================================

/** A sentence: tokens up to one that ends a sentence, or to the end of its line. */
interface Sentence {
  /** Its tokens in lower case: the same sentence wherever it is written. */
  id: string;
  bytes: number;
  tokens: Tok[];
}

function sentencesOf(lines: readonly Line[]): Sentence[] {
  const out: Sentence[] = [];
  for (const line of lines) {
    let tokens: Tok[] = [];
    for (const t of line.tokens) {
      tokens.push(t);
      if (t.ends) {
        out.push(sentence(tokens));
        tokens = [];
      }
    }
    if (tokens.length > 0) out.push(sentence(tokens));
  }
  return out;
}

const sentence = (tokens: Tok[]): Sentence => ({
  id: tokens.flatMap((t) => t.atoms).join(" "),
  bytes: tokens.reduce((sum, t) => sum + bytesOf(t), 0),
  tokens,
});

/** Every run of RUN tokens within a line, in order: its identity and its tokens. */
function runsOf(lines: readonly Line[]): { id: string; tokens: Tok[] }[] {
  const out: { id: string; tokens: Tok[] }[] = [];
  for (const line of lines) {
    for (let j = 0; j + RUN <= line.tokens.length; j++) {
      const tokens = line.tokens.slice(j, j + RUN);
      out.push({ id: tokens.map(norm).join("\u0000"), tokens });
    }
  }
  return out;
}

/**
 * The tokens of the content that stand in a run of RUN tokens it states more often than the
 * source does: the run's second statement (or the one past the source's count) and every later
 * one mark their tokens.
 */
function repeatedRunTokens(content: readonly Line[], source: readonly Line[] | null): Set<Tok> {
  const runs = runsOf(content);
  const inSource = source ? countBy(runsOf(source), (r) => r.id) : new Map<string, number>();
  const seen = new Map<string, number>();
  const marked = new Set<Tok>();
  for (const run of runs) {
    const count = (seen.get(run.id) ?? 0) + 1;
    seen.set(run.id, count);
    if (count > Math.max(inSource.get(run.id) ?? 0, 1)) for (const t of run.tokens) marked.add(t);
  }
  return marked;
}

const clamp01 = (x: number) => (x < 0 ? 0 : Math.min(x, 1));

/**
 * Text: 1 − wasted bytes / bytes of the content's sentences. A sentence stated more often than
 * the source states it is a repeat, at REPEAT_COST per byte; in any other sentence, tokens of
 * repeated runs cost that too; with a source, a sentence that is not one of the source's,
 * states no key any fact of it needs and names no hash is filler, costing its bytes (or its
 * runs' cost, the larger). Sums run in the content's order.
 */
function textEfficiency(
  content: readonly Line[],
  source: Source | null,
  filler = true,
  wrong: ReadonlySet<Tok> = new Set(),
): number {
  const sourceSentences =
    source?.doc.kind === "text" ? countBy(sentencesOf(source.doc.lines), (s) => s.id) : new Map<string, number>();
  const repeated = repeatedRunTokens(content, source?.doc.kind === "text" ? source.doc.lines : null);
  const seen = new Map<string, number>();
  let total = 0;
  let wasted = 0;
  for (const s of sentencesOf(content)) {
    total += s.bytes;
    const count = (seen.get(s.id) ?? 0) + 1;
    seen.set(s.id, count);
    const fromSource = sourceSentences.get(s.id) ?? 0;
    if (count > Math.max(fromSource, 1)) {
      wasted += s.bytes * REPEAT_COST;
      continue;
    }
    const repeatedBytes = s.tokens.filter((t) => repeated.has(t)).reduce((sum, t) => sum + bytesOf(t), 0);
    let waste = repeatedBytes * REPEAT_COST;
    if (source && filler) {
      const hits = s.tokens.some((t) => t.kind === "hash" || t.index.some((key) => source.keys.has(key)));
      if (fromSource === 0 && !hits) waste = Math.max(waste, s.bytes);
    }
    // Bindings: a stretch that binds a fact to the wrong record states nothing true of the source.
    waste = Math.max(
      waste,
      s.tokens.filter((t) => wrong.has(t)).reduce((sum, t) => sum + bytesOf(t), 0),
    );
    wasted += waste;
  }
  return total === 0 ? 0 : clamp01(1 - wasted / total);
}

/** UTF-8 bytes of a leaf's path and value, plus one: its room in the content. */
const leafBytes = (leaf: Leaf) => utf8Length(leaf.path) + utf8Length(leaf.raw) + 1;

/**
 * JSON against a source: a leaf at a `path=value` stated more often than the source states it
 * is a repeat. With `byValue`, a leaf at a `path=value` the source never has (the JSON changed
 * its shape) is a repeat when its value is stated more often than the source states that value.
 * No filler: records repeat values by nature.
 */
function jsonEfficiency(content: JsonDoc, source: JsonDoc | null, byValue: boolean): number {
  const allowed = countBy(source?.leaves ?? [], leafKey);
  const allowedValues = countBy(byValue ? (source?.leaves ?? []) : [], (leaf) => leaf.value);
  const seen = new Map<string, number>();
  const seenValues = new Map<string, number>();
  let total = 0;
  let padding = 0;
  for (const leaf of content.leaves) {
    const bytes = leafBytes(leaf);
    total += bytes;
    const limit = allowed.get(leafKey(leaf)) ?? 0;
    const [counts, id, most] =
      byValue && limit === 0
        ? [seenValues, leaf.value, allowedValues.get(leaf.value) ?? 0]
        : [seen, leafKey(leaf), limit];
    const count = (counts.get(id) ?? 0) + 1;
    counts.set(id, count);
    if (count > Math.max(most, 1)) padding += bytes * REPEAT_COST;
  }
  return total === 0 ? 1 : clamp01(1 - padding / total);
}

/** Without a source, JSON has no repeats (records repeat values by nature) and text no filler. */
function efficiency(
  doc: Doc,
  source: Source | null,
  byValue: boolean,
  filler = true,
  wrong: ReadonlySet<Tok> = new Set(),
): number {
  if (doc.kind === "json") {
    if (!source) return 1;
    return jsonEfficiency(doc.json, source.doc.kind === "json" ? source.doc.json : null, byValue);
  }
  return textEfficiency(doc.lines, source, filler, wrong);
}

/**
 * Without a source ("Without a source"): the share of tokens that are specific (a fact 1, a
 * keyword ½, a stop word 0); for JSON, the mean over leaves and empty containers.
 */
function specificity(doc: Doc): number {
  if (doc.kind === "json") {
    const count = doc.json.leaves.length + doc.json.emptyContainers;
    return count === 0 ? 0 : doc.json.leaves.reduce((sum, leaf) => sum + leaf.spec, 0) / count;
  }
  const tokens = tokensOf(doc.lines);
  return tokens.length === 0 ? 0 : tokens.reduce((sum, t) => sum + halves(t), 0) / 2 / tokens.length;
}

// ============================================================================================
// 5. Order against chance ("Density", order; version 4)
// ============================================================================================

/** Each two tokens next to each other within a line and a sentence, by their norms; not two parts of one raw token. */
function neighbours(lines: readonly Line[]): [string, string][] {
  const out: [string, string][] = [];
  for (const line of lines)
    for (let k = 0; k + 1 < line.tokens.length; k++) {
      const t = line.tokens[k] as Tok;
      if (!t.ends && !t.inner) out.push([norm(t), norm(line.tokens[k + 1] as Tok)]);
    }
  return out;
}

/**
 * What a text content's coverage counts for by its order. Of its neighbouring tokens whose both
 * tokens occur in the source's neighbouring pairs, `shared`, and `kept`, those neighbours in the
 * source too. A random order of the content's shared tokens keeps `chance` = shared × Σ over the
 * source's distinct pairs (a, b) of c(a)·c(b)/n². With ORDER_MIN_PAIRS shared pairs or more, the
 * factor is min(1, max(0, (kept/chance − 1) / (ORDER_LIFT − 1))); else 1.
 */
function orderFactor(content: readonly Line[], source: readonly Line[]): number {
  const followers = new Map<string, string[]>();
  const pairs = new Set<string>();
  for (const [a, b] of neighbours(source)) {
    if (pairs.has(`${a}\u0000${b}`)) continue;
    pairs.add(`${a}\u0000${b}`);
    if (!followers.has(a)) followers.set(a, []);
    followers.get(a)?.push(b);
  }
  const held = new Set([...pairs].flatMap((p) => p.split("\u0000")));
  // c: how often the content states each token the source holds, in the order first stated.
  const c = countBy(
    tokensOf(content)
      .map(norm)
      .filter((x) => held.has(x)),
    (x) => x,
  );
  const n = [...c.values()].reduce((sum, x) => sum + x, 0);
  let shared = 0;
  let kept = 0;
  for (const [a, b] of neighbours(content)) {
    if (!c.has(a) || !c.has(b)) continue;
    shared++;
    if (pairs.has(`${a}\u0000${b}`)) kept++;
  }
  if (shared < ORDER_MIN_PAIRS) return 1;
  // Whole numbers, so their order of summing does not matter.
  let chance = 0;
  for (const [a, ca] of c) for (const b of followers.get(a) ?? []) chance += ca * (c.get(b) ?? 0);
  const expected = (chance / (n * n)) * shared;
  if (expected <= 0) return 1;
  return Math.min(1, Math.max(0, (kept / expected - 1) / (ORDER_LIFT - 1)));
}

// ============================================================================================
// 5b. Bindings ("Density", bindings; version 4)
// ============================================================================================

/**
 * A text source's records: each non-empty line (a diff's notation aside) is one; its kind is
 * the first keys of its keywords written as words of their own (not parts of a raw token such
 * as `tzdata:all`), in order. For each key a fact token (no keyword, no stop word) needs alone,
 * the records that state it, unless every record does (with two or more records); the kinds of
 * those records; the kind of token that first states it; and each record's keys.
 */
interface Records {
  lines: Map<string, number[]>;
  kinds: Map<string, Set<string>>;
  kindOf: Map<number, string>;
  tokenKind: Map<string, string>;
  keysOf: Map<number, string[]>;
  /**
   * Each record's template (its tokens' shapes, a word that stands on one record alone read as a
   * value of that record: a CSV row's codename), the key each of its tokens states alone (a fact
   * token's only key) or null, and for each such key the (record, place) pairs that state it.
   */
  templateOf: Map<number, string>;
  slots: Map<number, (string | null)[]>;
  at: Map<string, [number, number][]>;
}

/** A key at more than this many places of the lines of one template moves no value by place. */
const MAX_PLACES = 4;

function recordsOf(lines: readonly Line[]): Records {
  const notation = diffNotation(lines);
  const out: Records = {
    lines: new Map(),
    kinds: new Map(),
    kindOf: new Map(),
    tokenKind: new Map(),
    keysOf: new Map(),
    templateOf: new Map(),
    slots: new Map(),
    at: new Map(),
  };
  {
    const wordLines = countBy(
      lines.flatMap((line, l) =>
        line.tokens.length === 0 || notation?.[l] === true
          ? []
          : [...new Set(line.tokens.filter((t) => !valueShape(t)).map((t) => t.shape))],
      ),
      (w) => w,
    );
    lines.forEach((line, l) => {
      if (line.tokens.length === 0 || notation?.[l] === true) return;
      out.templateOf.set(
        l,
        JSON.stringify(
          line.tokens.map((t) => (!valueShape(t) && (wordLines.get(t.shape) as number) < 2 ? "#word" : t.shape)),
        ),
      );
      const slots = line.tokens.map((t) =>
        t.kind === "keyword" || t.kind === "stop" || t.need.length !== 1 ? null : (t.need[0] as string),
      );
      out.slots.set(l, slots);
      slots.forEach((key, k) => {
        if (key === null) return;
        out.at.set(key, [...(out.at.get(key) ?? []), [l, k]]);
      });
    });
  }
  const counted = lines.filter((line, l) => line.tokens.length > 0 && notation?.[l] !== true).length;
  lines.forEach((line, l) => {
    if (line.tokens.length === 0 || notation?.[l] === true) return;
    const kind = line.tokens
      .filter((t, k) => t.kind === "keyword" && t.need.length > 0 && !t.inner && !line.tokens[k - 1]?.inner)
      .map((t) => t.need[0])
      .join("\u0000");
    out.kindOf.set(l, kind);
    for (const t of line.tokens) {
      if (t.kind === "keyword" || t.kind === "stop" || t.need.length !== 1) continue;
      const key = t.need[0] as string;
      const at = out.lines.get(key) ?? [];
      if (!at.includes(l)) at.push(l);
      out.lines.set(key, at);
      const kinds = out.kinds.get(key) ?? new Set<string>();
      kinds.add(kind);
      out.kinds.set(key, kinds);
      if (!out.tokenKind.has(key)) out.tokenKind.set(key, t.kind);
    }
  });
  if (counted > 1) for (const [key, at] of out.lines) if (at.length === counted) out.lines.delete(key);
  for (const [key, at] of out.lines) for (const l of at) out.keysOf.set(l, [...(out.keysOf.get(l) ?? []), key]);
  return out;
}

/**
 * What a text content binds to the wrong record of the source. In each stretch (a line cut after
 * a sentence's end and after punctuation, within no raw token, as phrases are), its raw tokens
 * stating record keys, a raw token whose first such key an earlier one of the stretch states
 * left out. The stretch restates record R when R is the only record that two or more of them
 * state a key of, one of those keys stated by R alone, and all of them but one state a key of R.
 * That one is bound to the wrong record when one of its keys is stated on a record of R's kind
 * and takes the place of a key of R the stretch does not state, first stated by the same kind of
 * token (a version for a version, a time for a time). Returns the keys bound wrongly by every stretch that states them, and the tokens of the
 * stretches that bind one.
 */
function misbindings(content: readonly Line[], records: Records): { keys: Set<string>; tokens: Set<Tok> } {
  const linesOf = (key: string) => records.lines.get(key) ?? [];
  const bound = new Set<string>();
  const wrong = new Set<string>();
  const tokens = new Set<Tok>();
  for (const line of content) {
    const stretches: Tok[][] = [[]];
    for (const t of line.tokens) {
      (stretches[stretches.length - 1] as Tok[]).push(t);
      if (!t.inner && (t.ends || (!t.open && !t.field))) stretches.push([]);
    }
    for (const stretch of stretches) {
      const raws: string[][] = [];
      const seen = new Set<string>();
      const stated = new Set<string>();
      let keys: string[] = [];
      for (const t of stretch) {
        keys.push(...t.index.filter((key) => records.lines.has(key)));
        for (const key of keys) stated.add(key);
        if (t.inner) continue;
        if (keys.length > 0 && !seen.has(keys[0] as string)) {
          seen.add(keys[0] as string);
          raws.push(keys);
        }
        keys = [];
      }
      const named = [...new Set(raws.flat().filter((key) => linesOf(key).length === 1))].map(
        (key) => linesOf(key)[0] as number,
      );
      const states = (raw: string[], l: number) => raw.some((key) => linesOf(key).includes(l));
      let at = -1;
      if (raws.length >= 3 && named.length > 0) {
        let strong = [...new Set(named)].filter((l) => raws.filter((raw) => states(raw, l)).length >= 2);
        // The named record most of them state, more than any other.
        if (strong.length > 1) {
          const most = Math.max(...strong.map((l) => raws.filter((raw) => states(raw, l)).length));
          strong = strong.filter((l) => raws.filter((raw) => states(raw, l)).length === most);
        }
        const record = strong[0] as number;
        if (strong.length === 1 && raws.filter((raw) => states(raw, record)).length === raws.length - 1) {
          const off = raws.findIndex((raw) => !states(raw, record));
          const kind = records.kindOf.get(record) as string;
          // A fact of the record the stretch does not state, of the same kind of token: the one it replaces.
          const replaces = (key: string) =>
            (records.keysOf.get(record) ?? []).some(
              (own) => !stated.has(own) && records.tokenKind.get(own) === records.tokenKind.get(key),
            );
          const template = records.templateOf.get(record);
          const mine = records.slots.get(record) ?? [];
          // Or it stands on another record of R's template at a place where R has a key the
          // stretch does not state: that place's value on another item (a CSV row's codename).
          // A key at more than MAX_PLACES places of one template's lines is no field of theirs.
          const inPlace = (key: string) => {
            const at = (records.at.get(key) ?? []).filter(([l]) => records.templateOf.get(l) === template);
            if (new Set(at.map(([, k]) => k)).size > MAX_PLACES) return false;
            return at.some(([l, k]) => {
              const own = mine[k];
              return l !== record && own != null && own !== key && !stated.has(own);
            });
          };
          const old = (raws[off] as string[]).some((key) => records.kinds.get(key)?.has(kind) && replaces(key));
          if (old || (raws[off] as string[]).some(inPlace)) at = off;
        }
      }
      raws.forEach((raw, r) => {
        for (const key of raw) (r === at ? wrong : bound).add(key);
      });
      if (at >= 0) for (const t of stretch) tokens.add(t);
    }
  }
  return { keys: new Set([...wrong].filter((key) => !bound.has(key))), tokens };
}

// ============================================================================================
// 6. The measurement
// ============================================================================================

/** Rounded to four decimals, half up, with + − × ÷ and floor only, and clamped to [0, 1]. */
function roundScore(x: number): number {
  if (!(x > 0)) return 0;
  if (x >= 1) return 1;
  return Math.floor(x * 10000 + 0.5) / 10000;
}

function lookup(originals: Originals | undefined, hash: string): string | undefined {
  if (!originals) return undefined;
  return (typeof originals === "function" ? originals(hash) : originals.get(hash)) ?? undefined;
}

export function measureDetailed(content: string, options: MeasureOptions = {}): DetailedMeasurement {
  const format = options.format ?? "any";
  const required = options.requiredFields ?? [];
  const decoded = decode(content, format);
  const doc = decoded.doc;
  const answer = (
    density: number,
    components: Record<string, number>,
    facts: FactCounts | null = null,
    lost_examples: string[] = [],
    recoverable_examples: { fact: string; hash: string }[] = [],
  ): DetailedMeasurement => ({
    format: decoded.format,
    parseable: decoded.parseable,
    schema_valid,
    semantic_density_score: roundScore(density),
    components: Object.fromEntries(Object.entries(components).map(([name, x]) => [name, roundScore(x)])),
    facts,
    lost_examples,
    method: METHOD,
    recoverable_examples,
  });

  // Required fields hold on the content's JSON, or not at all; null when none are required.
  let schema_valid: boolean | null = null;
  if (required.length > 0) {
    const parsed = doc?.kind === "json" ? parseJson(decoded.text) : null;
    schema_valid = parsed?.ok === true && required.every((field) => fieldHolds(parsed.value, field));
  }

  // Without a source: specificity × efficiency.
  if (options.source === undefined || options.source === null) {
    if (!doc) return answer(0, {});
    const judged = { specificity: specificity(doc), efficiency: efficiency(doc, null, false) };
    return answer(judged.specificity * judged.efficiency, judged);
  }

  const source = analyseSource(sourceText(options.source, format));
  const index = doc ? indexOf(doc) : null;
  // The originals the content's markers name, in the order first named: a fact is recoverable
  // from the first that states it.
  const originals: { hash: string; index: Index }[] = [];
  if (doc && options.originals) {
    for (const hash of findMarkers(decoded.text, MAX_ORIGINALS)) {
      const text = lookup(options.originals, hash);
      if (text !== undefined) originals.push({ hash, index: indexOf(readDoc(text, false) as Doc) });
    }
  }

  // Held to a schema, JSON keeps its shape; without one it may change it and keep its values.
  const byValue = required.length === 0;
  // Words ("Density", words): across languages a word counts as much as the other facts are
  // kept; within one, as much as the content writes its words in phrases, relative to the source.
  let across = false;
  let wordCredit = 1;
  // Values ("Density", words): as much as the content ties its values to words, relative to the source.
  let binding = 1;
  if (doc?.kind === "text" && source.doc.kind === "text") {
    const language = languageOf(doc.lines);
    const sourceLanguage = languageOf(source.doc.lines);
    across = language > 0 && sourceLanguage > 0 && language !== sourceLanguage;
    const from = phrasingOf(source.doc.lines);
    if (from.values >= PHRASING_MIN_WORDS && from.bound > 0) {
      const own = phrasingOf(doc.lines);
      const share = own.values === 0 ? 0 : own.bound / own.values;
      binding = Math.min(1, share / ((from.bound / from.values) * PHRASING_NEED));
    }
    if (across && index) {
      let valueTotal = 0;
      let valueKept = 0;
      for (const fact of source.facts) {
        if (fact.word) continue;
        valueTotal += fact.weight;
        if (states(index, fact, byValue)) valueKept += fact.weight;
      }
      wordCredit = valueTotal > 0 ? valueKept / valueTotal : 0;
    } else if (!across && from.words >= PHRASING_MIN_WORDS && from.phrased > 0) {
      const own = phrasingOf(doc.lines);
      const share = own.words === 0 ? 0 : own.phrased / own.words;
      wordCredit = Math.min(1, share / ((from.phrased / from.words) * PHRASING_NEED));
    }
  }
  // Bindings ("Density", bindings): facts a text content binds to the wrong record of a text source.
  const misbound =
    doc?.kind === "text" && source.doc.kind === "text"
      ? misbindings(doc.lines, recordsOf(source.doc.lines))
      : { keys: new Set<string>(), tokens: new Set<Tok>() };
  // Weights are summed fact by fact in the source's order: the same additions in the same
  // order give the same bits on every platform, which rounding to four decimals can expose.
  let total = 0;
  let kept = 0;
  // Of which the facts of error and warning entries, and of those their tokens' own facts.
  let salientTotal = 0;
  let salientKept = 0;
  let entryTotal = 0;
  let entryKept = 0;
  const counts: FactCounts = { in_source: 0, retained: 0, recoverable: 0, lost: 0 };
  const lost: Fact[] = [];
  const recoverable: { fact: string; hash: string }[] = [];
  for (const fact of source.facts) {
    const entry = fact.salient && !fact.line;
    const credit = (share: number) => {
      kept += fact.weight * share;
      if (fact.salient) salientKept += fact.weight * share;
      if (entry) entryKept += fact.weight * share;
    };
    total += fact.weight;
    if (fact.salient) salientTotal += fact.weight;
    if (entry) entryTotal += fact.weight;
    if (fact.specific) counts.in_source++;
    const stated =
      index !== null &&
      states(index, fact, byValue) &&
      !(fact.need.length === 1 && misbound.keys.has(fact.need[0] as string));
    if (stated || (fact.word && across)) credit(fact.word ? wordCredit : fact.value ? binding : 1);
    if (stated) {
      if (fact.specific) counts.retained++;
      continue;
    }
    // Across languages a word was credited above, stated or not: no original adds to it.
    const from = fact.word && across ? undefined : originals.find((o) => states(o.index, fact, byValue));
    if (from) {
      credit(RECOVERABLE_CREDIT);
      if (fact.specific) {
        counts.recoverable++;
        if (recoverable.length < MAX_LOST_EXAMPLES) recoverable.push({ fact: fact.shown, hash: from.hash });
      }
      continue;
    }
    if (!fact.specific) continue;
    counts.lost++;
    lost.push(fact);
  }
  // Heaviest first; equals in the source's order (a stable sort keeps it).
  const lost_examples = lost
    .sort((a, b) => b.weight - a.weight)
    .slice(0, MAX_LOST_EXAMPLES)
    .map((f) => f.shown);

  if (!doc) return answer(0, {}, counts, lost_examples, recoverable);
  if (total === 0) {
    // A source with no facts and no context leaves nothing to lose: judged as without one.
    const judged = { specificity: specificity(doc), efficiency: efficiency(doc, null, false) };
    return answer(judged.specificity * judged.efficiency, judged, counts, lost_examples, recoverable);
  }
  let coverage = kept / total;
  // Across languages no sentence is the source's: repeats are judged, not filler.
  const components: Record<string, number> = {
    coverage,
    efficiency: efficiency(doc, source, byValue, !across, misbound.tokens),
  };
  if (salientTotal > 0 && salientTotal < total) {
    // Salience: the entries weigh at least SALIENT_SHARE of the coverage (their own share when
    // larger), the rest the rest; and a pass that keeps under SALIENT_NEED of what the entries'
    // tokens state (their whole lines aside) loses coverage in proportion.
    const rest = (kept - salientKept) / (total - salientTotal);
    const salience = entryTotal > 0 ? entryKept / entryTotal : salientKept / salientTotal;
    const gate = Math.min(1, salience / SALIENT_NEED);
    const share = Math.max(SALIENT_SHARE, salientTotal / total);
    coverage = (share * (salientKept / salientTotal) + (1 - share) * rest) * gate;
    components.coverage = coverage;
    components.salience = salience;
  }
  // Words: what the source's words counted for, when not in full or across languages.
  if (wordCredit < 1 || across) components.words = wordCredit;
  if (binding < 1) components.values = binding;
  if (doc.kind === "text" && source.doc.kind === "text" && !across) {
    const order = orderFactor(doc.lines, source.doc.lines);
    if (order < 1) {
      coverage *= order;
      components.coverage = coverage;
      components.order = order;
    }
  }
  return answer(coverage * (components.efficiency as number), components, counts, lost_examples, recoverable);
}
