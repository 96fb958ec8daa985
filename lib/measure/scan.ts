// The tokeniser as a scanner over character codes: lines and tokens are ranges, each raw token
// is looked up in the lexicon by its characters (no string is cut for a token already seen),
// and a text's tokens are one array of token ids with a byte of flags each. The rules are those
// of docs/measurement.md, "Tokens"; `classify` (tokens.ts) still decides what a token is.
// Long because the scanner, its joins across tokens and the link check that reads a line's
// characters are one loop's parts, kept together so the hot path reads in one place.
import { isWideSeparator } from "./chars";
import { FNV_OFFSET, growInt32, growUint8, mix, STRING_MULTIPLIER } from "./intern";
import { Lexicon, type TokenInfo } from "./lexicon";
import { bracketedPosition, isCodeFile, type TokenKind } from "./tokens";

export const ENDS = 1;
export const OPEN = 2;
/** Another part of the same raw token follows ("GNU/Linux", "--to=iec-i"; since floorline-facts/4). */
export const INNER = 4;
/**
 * A token set aside by where it stands (since floorline-facts/4): its facts weigh as context. A
 * Markdown link's target (its text says what it is), or a key: written as JSON writes one in a
 * text (`"statusCode":`), or a setting's (`port = 5432` at a line's start), as a JSON
 * document's key paths are.
 */
export const ASIDE = 8;
/** A comma with no space after it follows: a field separator (CSV; since floorline-facts/4). */
export const FIELD = 16;

// Character classes of ASCII, one table lookup per character.
const BREAK = 1;
const TRAIL = 2; // . , : = ' _ trimmed from a token's end
const LEAD = 4; // , : = ' _ trimmed from its start
const DIGIT = 8;
const LETTER = 16;
const ASCII = new Uint8Array(128);
for (let c = 0; c <= 32; c++) ASCII[c] = BREAK;
for (const c of '()[]{}<>"`|;!?*') ASCII[c.charCodeAt(0)] = BREAK;
ASCII[127] = BREAK;
for (const c of ".,:='_") ASCII[c.charCodeAt(0)] = (ASCII[c.charCodeAt(0)] as number) | TRAIL;
for (const c of ",:='_") ASCII[c.charCodeAt(0)] = (ASCII[c.charCodeAt(0)] as number) | LEAD;
for (let c = 48; c <= 57; c++) ASCII[c] = DIGIT;
for (let c = 65; c <= 90; c++) ASCII[c] = LETTER;
for (let c = 97; c <= 122; c++) ASCII[c] = LETTER;

const isDigitAt = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};
const isLetterAt = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c < 128 ? ((ASCII[c] as number) & LETTER) !== 0 : !isWideSeparator(c);
};

/** Chinese and Japanese script: kana, CJK ideographs, half-width katakana. */
export function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff66 && c <= 0xff9f)
  );
}

/** CJK and full-width punctuation: 、。「」（），：！？ and the like. */
export function isCjkPunctuation(c: number): boolean {
  return (
    (c >= 0x3001 && c <= 0x3003) ||
    (c >= 0x3008 && c <= 0x3011) ||
    (c >= 0x3014 && c <= 0x301f) ||
    (c >= 0xff01 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) ||
    (c >= 0xff5b && c <= 0xff65)
  );
}

/** Full stops, exclamation and question marks of CJK text: they end a sentence as . ! ? do. */
const isCjkSentenceEnd = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff0e;

/** Whether the character at `i` ends a token, in the line `[from, to)`. */
function breaksAt(s: string, i: number, from: number, to: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 128) return isWideSeparator(c) || isCjkPunctuation(c);
  if (((ASCII[c] as number) & BREAK) !== 0) return true;
  // A thousands separator (a digit before, three after, then no digit: "10,000") and an
  // apostrophe between letters stay inside the token; other commas separate ("1204,88412.50").
  if (c === 44) {
    return !(
      i > from &&
      i + 3 < to &&
      isDigitAt(s, i - 1) &&
      isDigitAt(s, i + 1) &&
      isDigitAt(s, i + 2) &&
      isDigitAt(s, i + 3) &&
      !(i + 4 < to && isDigitAt(s, i + 4))
    );
  }
  if (c === 39) return !(i > from && i + 1 < to && isLetterAt(s, i - 1) && isLetterAt(s, i + 1));
  return false;
}

/** The tokens of texts, line by line: token ids and flags, and each line's token range and text. */
export class TokenStore {
  tokens = new Int32Array(256);
  flags = new Uint8Array(256);
  count = 0;
  /** Line `l` holds tokens `[lineStart[l], lineStart[l + 1])`. */
  lineStart = new Int32Array(64);
  lines = 0;
  /** Where each line's text is: `texts[lineText[l]]`, characters `[lineFrom[l], lineTo[l])`. */
  lineText = new Int32Array(64);
  lineFrom = new Int32Array(64);
  lineTo = new Int32Array(64);
  /** 1 where line `l`'s tokens are what scanning its characters alone gives (see KnownLines). */
  scanned = new Uint8Array(64);
  readonly texts: string[] = [];
  /**
   * The lines of the source measured against, while a content is read: a line of the content
   * that is one of them takes its tokens from there instead of being scanned again.
   */
  known: KnownLines | null = null;

  constructor(readonly lexicon: Lexicon) {}

  /** Empties the store, keeping its arrays. */
  clear(): void {
    this.count = 0;
    this.lines = 0;
    this.lineStart[0] = 0;
    this.texts.length = 0;
    this.known = null;
  }

  /** The text of line `l`, as written. */
  lineString(l: number): string {
    return (this.texts[this.lineText[l] as number] as string).slice(this.lineFrom[l], this.lineTo[l]);
  }

  private textIndex(s: string): number {
    const last = this.texts.length - 1;
    if (last >= 0 && this.texts[last] === s) return last;
    this.texts.push(s);
    return last + 1;
  }

  private push(id: number, flags: number): void {
    if (this.count >= this.tokens.length) {
      this.tokens = growInt32(this.tokens, this.count + 1);
      this.flags = growUint8(this.flags, this.count + 1);
    }
    this.tokens[this.count] = id;
    this.flags[this.count++] = flags;
  }

  private beginLine(text: number, from: number, to: number): void {
    const l = this.lines;
    if (l + 2 > this.lineText.length) {
      this.lineStart = growInt32(this.lineStart, l + 2);
      this.lineText = growInt32(this.lineText, l + 2);
      this.lineFrom = growInt32(this.lineFrom, l + 2);
      this.lineTo = growInt32(this.lineTo, l + 2);
      this.scanned = growUint8(this.scanned, l + 2);
    }
    this.lineStart[l] = this.count;
    this.lineText[l] = text;
    this.lineFrom[l] = from;
    this.lineTo[l] = to;
    this.scanned[l] = 0;
  }

  /** Lines `[from, to)` were changed after their scan (readCapitals): no content may take them as scanned. */
  rewritten(from: number, to: number): void {
    this.scanned.fill(0, from, to);
  }

  private endLine(): void {
    this.lines++;
    this.lineStart[this.lines] = this.count;
  }

  /** Adds `s[from, to)` as text, one line per `\n`; returns the first line's number. */
  addText(s: string, from: number, to: number): number {
    const first = this.lines;
    const text = this.textIndex(s);
    let at = from;
    for (;;) {
      let nl: number;
      if (to === s.length) {
        nl = s.indexOf("\n", at);
        if (nl < 0) nl = to;
      } else {
        // A range of a larger text (a JSON string): indexOf would search past its end.
        nl = at;
        while (nl < to && s.charCodeAt(nl) !== 10) nl++;
      }
      this.beginLine(text, at, nl);
      const known = this.known === null ? -1 : this.known.find(s, at, nl);
      if (known < 0) this.scanLine(s, at, nl);
      else this.copyLine(this.known as KnownLines, known);
      this.scanned[this.lines] = 1;
      this.endLine();
      if (nl >= to) break;
      at = nl + 1;
    }
    return first;
  }

  /** Adds the tokens and flags of the known store's line `l`, as scanning the same characters would. */
  private copyLine(known: KnownLines, l: number): void {
    const from = known.store.lineStart[l] as number;
    const n = (known.store.lineStart[l + 1] as number) - from;
    if (this.count + n > this.tokens.length) {
      this.tokens = growInt32(this.tokens, this.count + n);
      this.flags = growUint8(this.flags, this.count + n);
    }
    const tokens = known.store.tokens;
    const flags = known.store.flags;
    for (let k = 0; k < n; k++) {
      this.tokens[this.count + k] = tokens[from + k] as number;
      this.flags[this.count + k] = flags[from + k] as number;
    }
    this.count += n;
  }

  /** Adds one line of the tokens of group `g` of the lexicon (a JSON number, already classified). */
  addTokens(g: number, s: string, from: number, to: number): void {
    const text = this.textIndex(s);
    this.beginLine(text, from, to);
    const members = this.lexicon.members;
    const size = members[g] as number;
    for (let k = 1; k <= size; k++) this.push(members[g + k] as number, k < size ? INNER : 0);
    this.endLine();
  }

  private scanLine(s: string, from: number, to: number): void {
    const lexicon = this.lexicon;
    const lineStart = this.count;
    let i = from;
    let initial = true;
    let anyRaw = false;
    // The last token of the previous raw token, whose sentence an empty raw token may end.
    let previousLast = -1;
    // Where a link definition's label closes (the line's first `]`), read when first needed.
    let labelClose = UNREAD;
    while (i < to) {
      while (i < to && breaksAt(s, i, from, to)) i++;
      if (i >= to) break;
      const start = i;
      // A token is of one script: CJK text has no spaces, so its runs end where Latin letters,
      // digits or punctuation begin ("最大8 GB" is 最大, 8 and GB).
      const cjk = isCjk(s.charCodeAt(start));
      // The raw token's hash as the lexicon's interner computes it, read on the way: up to the
      // last character the trimming below keeps (`hashEnd`), if nothing is trimmed at its start.
      let h = FNV_OFFSET;
      let hash = h;
      let hashEnd = start;
      while (i < to) {
        const c = s.charCodeAt(i);
        if (c < 128) {
          if (cjk || ((ASCII[c] as number) & BREAK) !== 0) break;
          if ((c === 44 || c === 39) && breaksAt(s, i, from, to)) break;
        } else if (isWideSeparator(c) || isCjkPunctuation(c) || isCjk(c) !== cjk) break;
        h = Math.imul(h ^ c, STRING_MULTIPLIER);
        i++;
        if (c >= 128 || ((ASCII[c] as number) & TRAIL) === 0) {
          hash = h;
          hashEnd = i;
        }
      }
      let a = start;
      let b = i;
      const after = i < to ? s.charCodeAt(i) : -1;
      let ends = after === 33 || after === 63 || isCjkSentenceEnd(after);
      for (;;) {
        if (b <= a) break;
        const c = s.charCodeAt(b - 1);
        if (c >= 128 || ((ASCII[c] as number) & TRAIL) === 0) break;
        if (c === 46) ends = true;
        b--;
      }
      for (;;) {
        if (a >= b) break;
        const c = s.charCodeAt(a);
        if (c >= 128 || ((ASCII[c] as number) & LEAD) === 0) break;
        a++;
      }
      const open = b === i && (i >= to || after <= 32);
      const field = b === i && after === 44 && i + 1 < to && s.charCodeAt(i + 1) > 32 ? FIELD : 0;
      if (b > a) {
        const g = lexicon.group(s, a, b, initial, a === start && b === hashEnd ? hash : undefined);
        const members = lexicon.members;
        const size = members[g] as number;
        // A Markdown link's target: after `](`, or an http(s) URL after a definition's label;
        // a key: quoted (`"` before, `":` after), or a line's first token with `=` after it.
        let aside = 0;
        const before = linkBefore(s, from, start);
        if (before === INLINE_LINK) aside = ASIDE;
        else if (quotedKey(s, from, to, start, i) || (!anyRaw && settingKey(s, b, to))) aside = ASIDE;
        else if (before >= 0 && (s.startsWith("http://", start) || s.startsWith("https://", start))) {
          if (labelClose === UNREAD) labelClose = labelCloseOf(s, from, to);
          if (before === labelClose) aside = ASIDE;
        }
        for (let k = 1; k <= size; k++) this.push(members[g + k] as number, (k < size ? INNER : 0) | aside);
        previousLast = size > 0 ? this.count - 1 : -1;
        if (previousLast >= 0) this.flags[previousLast] = (ends ? ENDS : 0) | (open ? OPEN : 0) | aside | field;
        anyRaw = true;
        initial = ends;
      } else if (ends && anyRaw) {
        if (previousLast >= 0) this.flags[previousLast] = (this.flags[previousLast] as number) | ENDS;
        initial = true;
      }
      // A position in code in brackets after its file (`orders.ts(8,57)`) is read past: the
      // file is the fact, as `orders.ts:8:57` reads as its file (tokens.ts codePosition).
      if (b === i && b > a && s.charCodeAt(i) === 40) {
        const end = bracketedPosition(s, i, to);
        if (end > 0 && isCodeFile(s.slice(a, b))) i = end;
      }
    }
    this.joinAcross(lineStart);
  }

  /**
   * Joins what spans tokens, in place over the line's tokens from `start`: "May 2, 2026" and
   * "2 May 2026" into one date, a number and its unit word ("4 GB"), a time and am/pm.
   */
  private joinAcross(start: number): void {
    const end = this.count;
    const infos = this.lexicon.infos;
    const opensJoin = this.lexicon.opensJoin;
    const tokens = this.tokens;
    const flags = this.flags;
    let w = start;
    for (let i = start; i < end; i++) {
      const f = flags[i] as number;
      if (opensJoin[tokens[i] as number] === 0) {
        tokens[w] = tokens[i] as number;
        flags[w++] = f;
        continue;
      }
      const t = infos[tokens[i] as number] as TokenInfo;
      const next = i + 1 < end ? (infos[tokens[i + 1] as number] as TokenInfo) : null;
      let joined = -1;
      let span = 1;
      if (next) {
        const third = i + 2 < end ? (infos[tokens[i + 2] as number] as TokenInfo) : null;
        if (t.kind !== "number" && t.month > 0 && (f & ENDS) === 0) {
          const day = smallUpTo(next, 31);
          if (day > 0) {
            const year = third && ((flags[i + 1] as number) & ENDS) === 0 ? smallUpTo(third, 2999) : -1;
            if (third && year >= 1000) {
              joined = this.lexicon.date([t, next, third], year, t.month, day);
              span = 3;
            } else {
              joined = this.lexicon.date([t, next], 0, t.month, day);
              span = 2;
            }
          } else if (smallUpTo(next, 2999) >= 1000) {
            // A month of a year: "April 2026".
            joined = this.lexicon.date([t, next], next.small, t.month, 0);
            span = 2;
          }
        }
        if (joined < 0) {
          const day = smallUpTo(t, 31);
          if (day > 0 && (f & ENDS) === 0 && third) {
            const year = smallUpTo(third, 2999);
            if (next.month > 0 && year >= 1000 && ((flags[i + 1] as number) & ENDS) === 0) {
              joined = this.lexicon.date([t, next, third], year, next.month, day);
              span = 3;
            }
          }
        }
        if (joined < 0 && (f & OPEN) !== 0 && (t.kind === "number" || t.kind === "time")) {
          if (t.kind === "number" && t.numberValue !== null && next.unit !== "") {
            joined = this.lexicon.numberWithUnit(t, next);
            span = 2;
          } else if (t.kind === "number" && next.magnitude > 0 && t.numberRaw !== null && scalableUnit(t.numberUnit)) {
            const third = i + 2 < end ? (infos[tokens[i + 2] as number] as TokenInfo) : null;
            const unit =
              third && t.numberUnit === "" && ((flags[i + 1] as number) & OPEN) !== 0 && third.unit !== ""
                ? third
                : null;
            joined = this.lexicon.numberWithMagnitude(t, next, unit);
            span = unit ? 3 : 2;
          } else if (next.ampm) {
            joined = this.lexicon.timeWithMeridiem(t, next);
            if (joined >= 0) span = 2;
          }
        }
        if (
          joined < 0 &&
          t.currency !== "" &&
          (f & OPEN) !== 0 &&
          next.kind === "number" &&
          next.numberValue !== null
        ) {
          // A currency written before its number: "USD 4.2M", "€ 5", "USD 1.5 million".
          const third = i + 2 < end ? (infos[tokens[i + 2] as number] as TokenInfo) : null;
          const word = third && third.magnitude > 0 && ((flags[i + 1] as number) & OPEN) !== 0 ? third : null;
          joined = this.lexicon.currencyFirst(t, next, word);
          span = word ? 3 : 2;
        }
      }
      if (joined >= 0) {
        tokens[w] = joined;
        flags[w++] = flags[i + span - 1] as number;
        i += span - 1;
      } else {
        tokens[w] = tokens[i] as number;
        flags[w++] = f;
      }
    }
    this.count = w;
  }
}

const isBlank = (c: number) => c === 32 || c === 9;
const INLINE_LINK = -2;
const UNREAD = -2;

/**
 * Whether a line's first token, ending at `end` of `s[…, to)`, is a setting's key: `=` follows it
 * (after spaces, not `==`), as in `port = 5432` (postgresql.conf, INI, TOML).
 */
function settingKey(s: string, end: number, to: number): boolean {
  let k = end;
  while (k < to && isBlank(s.charCodeAt(k))) k++;
  return k < to && s.charCodeAt(k) === 61 && s.charCodeAt(k + 1) !== 61;
}

/**
 * Whether the raw token at `[start, end)` of the line `s[from, to)` is quoted as JSON quotes a
 * key: `"statusCode":`.
 */
function quotedKey(s: string, from: number, to: number, start: number, end: number): boolean {
  return (
    start > from &&
    s.charCodeAt(start - 1) === 34 &&
    end + 1 < to &&
    s.charCodeAt(end) === 34 &&
    s.charCodeAt(end + 1) === 58
  );
}

/**
 * What stands before the raw token at `start` of the line `s[from, …)`: INLINE_LINK after `](`
 * (`[text](url)`, an image's too); after `]:` and blanks (`[label]: url`), the index of that
 * `]`, the token's place only if it is the line's first (labelCloseOf); else -1.
 */
function linkBefore(s: string, from: number, start: number): number {
  if (start - 2 >= from && s.charCodeAt(start - 1) === 40 && s.charCodeAt(start - 2) === 93) return INLINE_LINK;
  let k = start - 1;
  while (k >= from && isBlank(s.charCodeAt(k))) k--;
  if (k === start - 1 || k - 1 <= from || s.charCodeAt(k) !== 58 || s.charCodeAt(k - 1) !== 93) return -1;
  return k - 1;
}

/**
 * Where a link definition's label closes: the line's first `]`, when its first character but
 * blanks is `[`; else -1. Read once per line, so the check stays linear in the line (a path
 * after the label is a log line's `[ERROR]: /var/…`, which is why only URLs count there).
 */
function labelCloseOf(s: string, from: number, to: number): number {
  let f = from;
  while (f < to && isBlank(s.charCodeAt(f))) f++;
  if (s.charCodeAt(f) !== 91) return -1;
  for (let i = f + 1; i < to; i++) if (s.charCodeAt(i) === 93) return i;
  return -1;
}

/** A number scales by a magnitude word when it has no unit, or a currency ("$3 billion"). */
const scalableUnit = (unit: string) => unit === "" || unit === "usd" || unit === "eur" || unit === "gbp";

function smallUpTo(t: TokenInfo, max: number): number {
  return t.small >= 1 && t.small <= max ? t.small : -1;
}

/** The tokens of one line as the method reads them, spelled out (for tests and examples). */
export function tokenizeLine(
  line: string,
): { text: string; kind: TokenKind; need: string[]; shape: string; ends: boolean; open: boolean }[] {
  const lexicon = new Lexicon();
  const store = new TokenStore(lexicon);
  store.addText(line, 0, line.length);
  const out = [];
  for (let k = 0; k < store.count; k++) {
    const t = lexicon.infos[store.tokens[k] as number] as TokenInfo;
    const need: string[] = [];
    for (let n = t.needFrom; n < t.needTo; n++)
      need.push(lexicon.keys.strings[lexicon.seqs.pool[n] as number] as string);
    const flags = store.flags[k] as number;
    out.push({
      text: t.text,
      kind: t.kind,
      need,
      shape: t.shapeText,
      ends: (flags & ENDS) !== 0,
      open: (flags & OPEN) !== 0,
    });
  }
  return out;
}

/**
 * The scanned lines of a store, found by their characters. A line's tokens and flags are a
 * function of its characters alone (scanLine reads nothing outside the line and starts each
 * line afresh) and of the lexicon, whose ids for a source's tokens stay while the source's
 * analysis is kept (a source is read outside the lexicon's zone). So a content's line that a
 * source states as it is (a summary keeps many lines, a JSON pass many strings, verbatim) takes
 * the source's tokens: the answer is the same, the scan is not paid twice.
 */
export class KnownLines {
  /** Per slot, a line's hash and its number plus one (0: empty), side by side. */
  private readonly table: Int32Array;
  private readonly mask: number;

  constructor(readonly store: TokenStore) {
    let lines = 0;
    for (let l = 0; l < store.lines; l++)
      if (store.scanned[l] === 1 && (store.lineTo[l] as number) > (store.lineFrom[l] as number)) lines++;
    // At most half full: about as many bytes as the store keeps per line itself.
    let size = 16;
    while (size < lines * 2) size *= 2;
    this.mask = size - 1;
    this.table = new Int32Array(size * 2);
    for (let l = 0; l < store.lines; l++) {
      const from = store.lineFrom[l] as number;
      const to = store.lineTo[l] as number;
      if (store.scanned[l] !== 1 || to === from) continue;
      // The same characters already known: the first line that states them serves.
      const s = store.texts[store.lineText[l] as number] as string;
      const h = lineHash(s, from, to);
      const slot = this.slotOf(h, s, from, to);
      if (this.table[slot + 1] !== 0) continue;
      this.table[slot] = h;
      this.table[slot + 1] = l + 1;
    }
  }

  /** The store's line whose characters are `s[from, to)`, or -1. */
  find(s: string, from: number, to: number): number {
    if (to === from) return -1;
    return (this.table[this.slotOf(lineHash(s, from, to), s, from, to) + 1] as number) - 1;
  }

  /** The slot of the line with hash `h` and characters `s[from, to)`, or the empty slot it would take. */
  private slotOf(h: number, s: string, from: number, to: number): number {
    const { table, store } = this;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const slot = i * 2;
      const line = (table[slot + 1] as number) - 1;
      if (line < 0) return slot;
      if (table[slot] !== h) continue;
      const a = store.lineFrom[line] as number;
      if ((store.lineTo[line] as number) - a !== to - from) continue;
      const t = store.texts[store.lineText[line] as number] as string;
      let k = 0;
      while (k < to - from && t.charCodeAt(a + k) === s.charCodeAt(from + k)) k++;
      if (k === to - from) return slot;
    }
  }
}

/** A line's hash, mixed as the interner's are: a product's low bits see only the characters' low bits. */
function lineHash(s: string, from: number, to: number): number {
  let h = FNV_OFFSET ^ (to - from);
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), STRING_MULTIPLIER);
  return mix(h);
}
