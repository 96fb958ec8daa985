// Text (and logs, which are text): its facts, what it states, its sentences. A text is a range
// of lines of a token store; everything here walks token ids.
// Longer than most modules on purpose: every rule that reads a text's lines (logs, error lines,
// salience, incidental lines, languages, phrasing) walks the same store with the same private
// helpers, and the Python port (sdk/python/.../_measure/text.py) mirrors it in one file too.
import { CONTEXT_WEIGHT, ERROR_LINE_WEIGHT, type FactIndex, type FactTable, mark } from "./facts";
import { asciiLower } from "./chars";
import { DETAIL_LEVELS, ERROR_LEVELS, LEVEL_WORDS, WARNING_LEVELS } from "./words";
import { type Counts, growInt32, SeqInterner } from "./intern";
import { TripleCounter } from "./tables";
import { KEYWORD, type Lexicon, type TokenInfo } from "./lexicon";
import { ASIDE, ENDS, INNER, OPEN, type TokenStore } from "./scan";
import { LANGUAGE_WORDS } from "./words";
import {
  CAP_WORD,
  GERMAN_WORD,
  IS_VALUE,
  LANGUAGE_BITS,
  LANGUAGE_SHIFT,
  LOWER_WORD,
  NAMED,
  VALUE_SIGN,
  WORD_LIKE,
} from "./token-info";

/** How many leading tokens of a line may hold its time and level. */
const LEAD = 4;

export interface TextDoc {
  store: TokenStore;
  /** Lines `[firstLine, endLine)` of the store. */
  firstLine: number;
  endLine: number;
}

export function analyseText(store: TokenStore, s: string, from = 0, to = s.length): TextDoc {
  const firstLine = store.addText(s, from, to);
  const doc = { store, firstLine, endLine: store.lines };
  // Read as German, its lines' tokens are no longer what scanning each line alone gives.
  if (readCapitals(store, store.lineStart[firstLine] as number, store.count)) store.rewritten(firstLine, store.lines);
  return doc;
}

/** Words a text must have before its capitals are judged. */
const MIN_WORDS = 12;
/** Share of capitalised words (not opening a sentence) from which capitals may say nothing. */
const CAPITAL_SHARE = 0.25;
/** Share of German function words among the lower-case words that makes a text German. */
const GERMAN_SHARE = 0.15;

/**
 * German capitalises its nouns, so there a capital is no sign of a name: in a German text (a
 * sixth or more of its lower-case words German function words) that capitalises a quarter or
 * more of its words mid-sentence, such words read as keywords, as at a sentence's start.
 * English capitalises names, even in a list of them, and keeps them as facts. Whether it read
 * tokens `[a, b)` so.
 */
export function readCapitals(store: TokenStore, a: number, b: number): boolean {
  const lexicon = store.lexicon;
  const infos = lexicon.infos;
  const flags = lexicon.flags;
  let capitals = 0;
  let lower = 0;
  let german = 0;
  for (let k = a; k < b; k++) {
    const f = flags[store.tokens[k] as number] as number;
    if ((f & CAP_WORD) !== 0) capitals++;
    if ((f & LOWER_WORD) !== 0) lower++;
    if ((f & GERMAN_WORD) !== 0) german++;
  }
  const words = capitals + lower;
  if (words < MIN_WORDS || capitals < words * CAPITAL_SHARE || german < lower * GERMAN_SHARE) return false;
  for (let k = a; k < b; k++) {
    const info = infos[store.tokens[k] as number] as TokenInfo;
    if (info.capWord) store.tokens[k] = lexicon.asInitial(info);
  }
  return true;
}

/** Function words of one language a text must use before it is said to be in that language. */
const LANGUAGE_MIN = 8;
/** And their share of its words (keywords, names and function words of letters only). */
const LANGUAGE_SHARE = 0.1;

/**
 * The language of a text (since floorline-facts/4): 1 + its index in LANGUAGE_WORDS, or 0 when
 * the text uses too few function words of any (code, logs, tables, CJK) or two as much. A
 * language is the one whose function words the text uses most, at least LANGUAGE_MIN of them
 * and LANGUAGE_SHARE of its words, and more than of any other.
 */
export function languageOf(doc: TextDoc): number {
  const { store } = doc;
  const flags = store.lexicon.flags;
  const hits = new Int32Array(LANGUAGE_WORDS.length);
  let words = 0;
  const to = store.lineStart[doc.endLine] as number;
  for (let k = store.lineStart[doc.firstLine] as number; k < to; k++) {
    const f = flags[store.tokens[k] as number] as number;
    const languages = (f & LANGUAGE_BITS) >> LANGUAGE_SHIFT;
    if ((f & WORD_LIKE) !== 0 || languages !== 0) words++;
    for (let i = 0; languages !== 0 && i < hits.length; i++)
      if ((languages >> i) & 1) hits[i] = (hits[i] as number) + 1;
  }
  let best = -1;
  let second = 0;
  for (let i = 0; i < hits.length; i++) {
    const n = hits[i] as number;
    if (best < 0 || n > (hits[best] as number)) {
      if (best >= 0) second = hits[best] as number;
      best = i;
    } else if (n > second) second = n;
  }
  const n = hits[best] as number;
  return n >= LANGUAGE_MIN && n >= words * LANGUAGE_SHARE && n > second ? best + 1 : 0;
}

/** How far from a function word, in tokens of its phrase, a word still stands in the phrase. */
const PHRASE_REACH = 2;

/** Of a text's words (keywords and names of letters only), how many stand in a phrase. */
export interface Phrasing {
  words: number;
  phrased: number;
  /** Of its values (numbers, hashes, versions, dates, paths: not names), how many share a sentence with a word or a name. */
  values: number;
  bound: number;
}

/**
 * Which of a text's words (function words aside) stand in a phrase (since floorline-facts/4):
 * within PHRASE_REACH tokens of a function word of any language of LANGUAGE_WORDS, or of a
 * value it may say something of (a number, a date, a path, an option: a fact that is not a
 * word), in the same stretch of the text (a line, up to the end of a sentence or to punctuation
 * after a token: a comma, a colon, a quote). Prose and notes put almost every word next to one
 * ("retries, 5 attempts"); a list or a bag of words puts none.
 *
 * And which of its values (isValue) are tied to something: their sentence (within the line)
 * holds a word, a function word or a name. "ports: 80, 443" ties both; a column of hashes or a
 * line of numbers ties none.
 */
export function phrasingOf(doc: TextDoc): Phrasing {
  const { store } = doc;
  const flags = store.lexicon.flags;
  let words = 0;
  let phrased = 0;
  let values = 0;
  let bound = 0;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const end = store.lineStart[l + 1] as number;
    // Values: by sentence, within the line.
    for (let s = store.lineStart[l] as number; s < end; ) {
      let e = s;
      let count = 0;
      let named = false;
      for (;;) {
        const t = flags[store.tokens[e] as number] as number;
        if ((t & IS_VALUE) !== 0) count++;
        else if ((t & NAMED) !== 0) named = true;
        const f = store.flags[e++] as number;
        if (e >= end || (f & ENDS) !== 0) break;
      }
      values += count;
      if (named) bound += count;
      s = e;
    }
    let from = store.lineStart[l] as number;
    while (from < end) {
      // The stretch [from, to): up to a token that ends a sentence or has punctuation after it.
      let to = from;
      for (;;) {
        const f = store.flags[to++] as number;
        if (to >= end || ((f & INNER) === 0 && ((f & ENDS) !== 0 || (f & OPEN) === 0))) break;
      }
      for (let k = from; k < to; k++) {
        const t = flags[store.tokens[k] as number] as number;
        if ((t & WORD_LIKE) === 0 || (t & LANGUAGE_BITS) !== 0) continue;
        words++;
        const a = Math.max(from, k - PHRASE_REACH);
        const b = Math.min(to, k + PHRASE_REACH + 1);
        for (let j = a; j < b; j++) {
          const near = flags[store.tokens[j] as number] as number;
          if ((near & (LANGUAGE_BITS | VALUE_SIGN)) !== 0) {
            phrased++;
            break;
          }
        }
      }
      from = to;
    }
  }
  return { words, phrased, values, bound };
}

/** Logs: at least two non-empty lines, at least half of them led by a time or a level. */
function isLogText(doc: TextDoc): boolean {
  const { store } = doc;
  const infos = store.lexicon.infos;
  let nonEmpty = 0;
  let logLike = 0;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    if (a === b) continue;
    nonEmpty++;
    const lead = Math.min(a + LEAD, b);
    for (let k = a; k < lead; k++) {
      if ((infos[store.tokens[k] as number] as TokenInfo).logLead) {
        logLike++;
        break;
      }
    }
  }
  return nonEmpty >= 2 && logLike * 2 >= nonEmpty;
}

/**
 * A log's time column: each line's stamp, its first time among its first LEAD tokens (its place
 * in the line, or -1), and the share of stamped lines whose stamp states the same keys. Stamps
 * that differ on every line are a sequence, worth one fact together, whatever the lines' words.
 */
function logStamps(doc: TextDoc): { at: Int32Array; share: (needSeq: number) => number } {
  const { store } = doc;
  const infos = store.lexicon.infos;
  const at = new Int32Array(doc.endLine - doc.firstLine).fill(-1);
  const lines = new Map<number, number>();
  let stamped = 0;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const lead = Math.min(a + LEAD, store.lineStart[l + 1] as number);
    for (let k = a; k < lead; k++) {
      const info = infos[store.tokens[k] as number] as TokenInfo;
      if (!info.isTime) continue;
      at[l - doc.firstLine] = k - a;
      lines.set(info.needSeq, (lines.get(info.needSeq) ?? 0) + 1);
      stamped++;
      break;
    }
  }
  return { at, share: (needSeq) => (lines.get(needSeq) ?? 0) / stamped };
}

/**
 * An error line: it opens like an error report ("Traceback", "TypeError: ..."), or, in logs,
 * one of its first tokens is an error level.
 */
function isErrorLine(store: TokenStore, a: number, b: number, logs: boolean): boolean {
  const infos = store.lexicon.infos;
  if (a < b && (infos[store.tokens[a] as number] as TokenInfo).opensError) return true;
  return logs && levelOf(store, a, b) === "error";
}

/**
 * How many leading tokens of a log line may come before a level written in capitals: a time,
 * a zone, a process id and PostgreSQL's `user@database` (three tokens) come before `ERROR`.
 */
const CAPITAL_LEVEL_LEAD = 10;

/**
 * A log line's level, in lower case, or "": the first level word among its first LEAD tokens
 * (an error level as `level=error` too), or written in capitals among its first
 * CAPITAL_LEVEL_LEAD (since floorline-facts/4; /3 looked for an error level anywhere among
 * four tokens, so "INFO request error" was an error line and PostgreSQL's ERROR was not).
 */
function levelOf(store: TokenStore, a: number, b: number): string {
  const infos = store.lexicon.infos;
  const lead = Math.min(a + CAPITAL_LEVEL_LEAD, b);
  for (let k = a; k < lead; k++) {
    const info = infos[store.tokens[k] as number] as TokenInfo;
    if (k < a + LEAD && info.errorLevel) return "error";
    const lower = asciiLower(info.text);
    if (!LEVEL_WORDS.has(lower)) continue;
    if (k < a + LEAD || info.text === info.text.toUpperCase()) return ERROR_LEVELS.has(lower) ? "error" : lower;
  }
  return "";
}

/** What an error line needs an index to hold: every key of its tokens but its time stamps. */
function errorLineNeed(lexicon: Lexicon, store: TokenStore, a: number, b: number): number {
  const seqs = lexicon.seqs;
  const seen = new Set<number>();
  for (let k = a; k < b; k++) {
    const t = lexicon.infos[store.tokens[k] as number] as TokenInfo;
    if (t.isTime) continue;
    for (let n = t.needFrom; n < t.needTo; n++) {
      const key = seqs.pool[n] as number;
      if (seen.has(key)) continue;
      seen.add(key);
      seqs.push(key);
    }
  }
  return seqs.take();
}

const startsWith = (store: TokenStore, l: number, prefix: string): boolean => {
  const text = store.texts[store.lineText[l] as number] as string;
  const from = store.lineFrom[l] as number;
  return (store.lineTo[l] as number) - from >= prefix.length && text.startsWith(prefix, from);
};

/** `--- a/…` followed by `+++ b/…`: the next file's header, not a line removed and one added. */
const fileHeader = (store: TokenStore, l: number, doc: TextDoc): boolean =>
  startsWith(store, l, "--- ")
    ? l + 1 < doc.endLine && startsWith(store, l + 1, "+++ ")
    : startsWith(store, l, "+++ ") && l > doc.firstLine && startsWith(store, l - 1, "--- ");

/** Header lines of a unified diff that say nothing a reader of the change needs. */
const DIFF_INCIDENTAL = [
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
 * In a unified diff (a text with a hunk, `@@ -a,b +c,d @@`), the lines a reader of the change
 * does not need (since floorline-facts/4): the hunks' headers and unchanged context lines, and
 * the diff's own notation around them (`diff --git a/… b/…`, `--- a/…` with the `+++ b/…` after
 * it, `index` hashes, file modes). What changed (`+` and `-` lines within a hunk) and everything
 * around the diff (a commit's message, its stat) stay facts. Null when the text holds no hunk.
 */
export function incidentalLines(doc: TextDoc): Uint8Array | null {
  const { store } = doc;
  let hunk = false;
  for (let l = doc.firstLine; l < doc.endLine && !hunk; l++) hunk = startsWith(store, l, "@@ -");
  if (!hunk) return null;
  const out = new Uint8Array(doc.endLine - doc.firstLine);
  let inHunk = false;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const text = store.texts[store.lineText[l] as number] as string;
    const from = store.lineFrom[l] as number;
    const empty = (store.lineTo[l] as number) === from;
    const first = empty ? -1 : text.charCodeAt(from);
    let incidental = false;
    if (startsWith(store, l, "@@ -")) {
      inHunk = true;
      incidental = true;
    } else if (inHunk && (empty || first === 32 || first === 92)) incidental = true;
    else if (inHunk && (first === 43 || first === 45) && !fileHeader(store, l, doc)) incidental = false;
    else {
      inHunk = false;
      incidental = DIFF_INCIDENTAL.some((prefix) => startsWith(store, l, prefix));
    }
    if (incidental) out[l - doc.firstLine] = 1;
  }
  return out;
}

/** The blanks (spaces, tabs as eight) that open line `l`. */
function indentOf(store: TokenStore, l: number): number {
  const text = store.texts[store.lineText[l] as number] as string;
  let n = 0;
  for (let i = store.lineFrom[l] as number; i < (store.lineTo[l] as number); i++) {
    const c = text.charCodeAt(i);
    if (c === 32) n++;
    else if (c === 9) n += 8;
    else break;
  }
  return n;
}

/**
 * The lines of error and warning entries (since floorline-facts/4; see SALIENT_SHARE): an
 * error line, or in logs a line led by a warning level, with the lines that belong to it
 * after it: indented ones (a traceback's frames, a deadlock's processes) and, in logs, those
 * led by a detail level (DETAIL, HINT, STATEMENT). Null when the text has no such entry.
 */
function salientLines(doc: TextDoc, logs: boolean): Uint8Array | null {
  const { store } = doc;
  let out: Uint8Array | null = null;
  let inEntry = false;
  // The indentation of the line that opened the entry: a line belongs to it if indented more.
  let opener = 0;
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    if (a === b) {
      inEntry = false;
      continue;
    }
    const indent = indentOf(store, l);
    const opens = isErrorLine(store, a, b, logs) || (logs && WARNING_LEVELS.has(levelOf(store, a, b)));
    if (!opens && inEntry) inEntry = indent > opener || (logs && DETAIL_LEVELS.has(levelOf(store, a, b)));
    else if (opens) {
      inEntry = true;
      opener = indent;
    } else inEntry = false;
    if (!inEntry) continue;
    out ??= new Uint8Array(doc.endLine - doc.firstLine);
    out[l - doc.firstLine] = 1;
  }
  return out;
}

/**
 * The facts of a text. Lines with the same template (their words, with each value replaced
 * by its kind) are records of one kind: a value that differs from record to record is worth
 * the share of records that state it, so thirty request lines weigh like one line, not thirty.
 */
export function addTextFacts(doc: TextDoc, into: FactTable, scale = 1): void {
  const { store } = doc;
  const lexicon = store.lexicon;
  const infos = lexicon.infos;
  const tokens = store.tokens;
  const lines = doc.endLine - doc.firstLine;
  // Templates: a line's sequence of token shapes, to an id local to this text.
  const templates = new SeqInterner();
  const templateOf = new Int32Array(lines);
  let rows = new Int32Array(16);
  for (let l = 0; l < lines; l++) {
    const a = store.lineStart[doc.firstLine + l] as number;
    const b = store.lineStart[doc.firstLine + l + 1] as number;
    if (a === b) {
      templateOf[l] = -1;
      continue;
    }
    for (let k = a; k < b; k++) templates.push((infos[tokens[k] as number] as TokenInfo).shape);
    const t = templates.take();
    templateOf[l] = t;
    rows = growInt32(rows, t + 1);
    rows[t] = (rows[t] as number) + 1;
  }
  // How many records of a template state each value at each position.
  const counts = new TripleCounter();
  for (let l = 0; l < lines; l++) {
    const t = templateOf[l] as number;
    if (t < 0 || (rows[t] as number) < 2) continue;
    const a = store.lineStart[doc.firstLine + l] as number;
    const b = store.lineStart[doc.firstLine + l + 1] as number;
    for (let k = a; k < b; k++) {
      const info = infos[tokens[k] as number] as TokenInfo;
      if (info.valueShape) counts.add(t, k - a, info.needSeq);
    }
  }
  const logs = isLogText(doc);
  const incidental = incidentalLines(doc);
  const salient = salientLines(doc, logs);
  const stamps = logs ? logStamps(doc) : null;
  for (let l = 0; l < lines; l++) {
    const t = templateOf[l] as number;
    if (t < 0 || (incidental !== null && incidental[l] === 1)) continue;
    const size = rows[t] as number;
    const line = doc.firstLine + l;
    const a = store.lineStart[line] as number;
    const b = store.lineStart[line + 1] as number;
    const inEntry = salient !== null && salient[l] === 1;
    for (let k = a; k < b; k++) {
      const info = infos[tokens[k] as number] as TokenInfo;
      if (info.needTo === info.needFrom) continue;
      let weight = info.word === KEYWORD ? CONTEXT_WEIGHT : 1;
      if (size > 1 && info.valueShape) weight = counts.get(t, k - a, info.needSeq) / size;
      if (stamps !== null && stamps.at[l] === k - a) weight = stamps.share(info.needSeq);
      // A link's address (its text says what it is), a key: context where they stand.
      if (((store.flags[k] as number) & ASIDE) !== 0) weight = Math.min(weight, CONTEXT_WEIGHT);
      const next = k + 1 < b ? (tokens[k + 1] as number) : -1;
      into.addText(
        info.needSeq,
        weight * scale,
        info.word !== KEYWORD,
        info.id,
        next,
        ((store.flags[k] as number) & OPEN) !== 0,
        inEntry,
        info.wordLike,
        info.isValue,
      );
    }
    if (isErrorLine(store, a, b, logs)) {
      into.addLine(errorLineNeed(lexicon, store, a, b), ERROR_LINE_WEIGHT * scale, line, true);
    }
  }
}

/** Adds every key the tokens `[a, b)` state to an index; `seen` marks token ids already added. */
export function indexTokens(store: TokenStore, a: number, b: number, index: FactIndex, seen: Counts): void {
  const infos = store.lexicon.infos;
  for (let k = a; k < b; k++) {
    const id = store.tokens[k] as number;
    if (seen.has(id)) continue;
    seen.add(id);
    const info = infos[id] as TokenInfo;
    const pool = store.lexicon.pool;
    for (let n = info.indexFrom; n < info.indexTo; n++) mark(index, pool[n] as number);
  }
}

/** The sum of the tokens' specificity (facts 1, keywords one half, stop words 0), and their count. */
export function specificitySum(store: TokenStore, a: number, b: number): number {
  const infos = store.lexicon.infos;
  let halves = 0;
  for (let k = a; k < b; k++) halves += (infos[store.tokens[k] as number] as TokenInfo).specHalves;
  return halves / 2;
}

/** Without a source: the share of tokens that are specific. */
export function textSpecificity(doc: TextDoc): number {
  const { store } = doc;
  const a = store.lineStart[doc.firstLine] as number;
  const b = store.lineStart[doc.endLine] as number;
  return b === a ? 0 : specificitySum(store, a, b) / (b - a);
}

/** A text's sentences: each one's identity (its tokens in lower case) and its bytes, in order. */
export interface Segments {
  ids: Int32Array<ArrayBuffer>;
  bytes: Int32Array<ArrayBuffer>;
  /** Token range of each sentence in the store. */
  from: Int32Array<ArrayBuffer>;
  to: Int32Array<ArrayBuffer>;
  count: number;
}

/** Sentences are told apart by ids from `seqs`, an interner of this measurement's own. */
export function segmentsOf(doc: TextDoc, lexicon: Lexicon, seqs: SeqInterner, into?: Segments): Segments {
  const { store } = doc;
  const norms = lexicon.norms;
  const out: Segments = into ?? {
    ids: new Int32Array(64),
    bytes: new Int32Array(64),
    from: new Int32Array(64),
    to: new Int32Array(64),
    count: 0,
  };
  out.count = 0;
  const close = (from: number, to: number, bytes: number) => {
    const n = out.count++;
    if (n >= out.ids.length) {
      out.ids = growInt32(out.ids, n + 1);
      out.bytes = growInt32(out.bytes, n + 1);
      out.from = growInt32(out.from, n + 1);
      out.to = growInt32(out.to, n + 1);
    }
    out.ids[n] = seqs.take();
    out.bytes[n] = bytes;
    out.from[n] = from;
    out.to[n] = to;
  };
  for (let l = doc.firstLine; l < doc.endLine; l++) {
    const a = store.lineStart[l] as number;
    const b = store.lineStart[l + 1] as number;
    let from = a;
    let bytes = 0;
    for (let k = a; k < b; k++) {
      const id = store.tokens[k] as number;
      // A token's atoms, from its norm (see Lexicon.norms): most tokens are one atom.
      const norm = norms[id] as number;
      if ((norm & 1) === 0) seqs.push(norm >> 1);
      else {
        const seq = norm >> 1;
        const pool = lexicon.seqs.pool;
        for (let n = lexicon.seqs.start[seq] as number; n < (lexicon.seqs.start[seq + 1] as number); n++)
          seqs.push(pool[n] as number);
      }
      bytes += lexicon.bytes[id] as number;
      if (((store.flags[k] as number) & ENDS) !== 0) {
        close(from, k + 1, bytes);
        from = k + 1;
        bytes = 0;
      }
    }
    if (from < b) close(from, b, bytes);
  }
  return out;
}
