// Text (and logs, which are text): its facts, what it states, its sentences.
import { CONTEXT_WEIGHT, ERROR_LINE_WEIGHT, type FactIndex, type FactSet } from "./facts";
import { errorLineNeed, isErrorLine, isLogText } from "./logs";
import { asciiLower, type Token, tokenizeLine, utf8Length } from "./tokens";

/** Longest error line kept whole in a lost example; longer ones are cut and marked. */
const MAX_EXAMPLE_CHARS = 160;

export interface Segment {
  /** The sentence's tokens in lower case, joined by single spaces: its identity. */
  norm: string;
  bytes: number;
  tokens: Token[];
}

export interface TextDoc {
  lines: Token[][];
  rawLines: string[];
  logs: boolean;
  segments: Segment[];
}

export function analyseText(text: string): TextDoc {
  const rawLines = text.split("\n");
  const lines = rawLines.map((line) => tokenizeLine(line));
  const segments: Segment[] = [];
  for (const tokens of lines) {
    let current: Token[] = [];
    for (const t of tokens) {
      current.push(t);
      if (t.ends) {
        segments.push(segmentOf(current));
        current = [];
      }
    }
    if (current.length > 0) segments.push(segmentOf(current));
  }
  return { lines, rawLines, logs: isLogText(lines), segments };
}

function segmentOf(tokens: Token[]): Segment {
  let norm = "";
  let bytes = 0;
  for (const t of tokens) {
    const lower = asciiLower(t.text);
    norm = norm ? `${norm} ${lower}` : lower;
    bytes += utf8Length(t.text) + 1;
  }
  return { norm, bytes, tokens };
}

const isValueShape = (shape: string) => shape.charCodeAt(0) === 35 || shape.indexOf("=#") >= 0;

function display(t: Token, next: Token | undefined): string {
  const text = t.key ? `${t.key}=${t.text}` : t.text;
  // A bare number says little without what it counts: "10,000 jobs", not "10,000".
  if (t.kind === "number" && !t.key && t.open && next && next.kind === "keyword") return `${text} ${next.text}`;
  return text;
}

/**
 * The facts of a text. Lines with the same template (their words, with each value replaced
 * by its kind) are records of one kind: a value that differs from record to record is worth
 * the share of records that state it, so thirty request lines weigh like one line, not thirty.
 */
export function addTextFacts(doc: TextDoc, into: FactSet, scale = 1): void {
  const templates = new Map<string, number[]>();
  doc.lines.forEach((tokens, i) => {
    if (tokens.length === 0) return;
    const template = tokens.map((t) => t.shape).join(" ");
    const rows = templates.get(template);
    if (rows) rows.push(i);
    else templates.set(template, [i]);
  });
  // How many records of a template state each value at each position, counted once per template.
  const lineGroup = new Map<number, { size: number; counts: Map<string, number> }>();
  for (const rows of templates.values()) {
    const counts = new Map<string, number>();
    if (rows.length > 1) {
      for (const row of rows) {
        (doc.lines[row] ?? []).forEach((t, slot) => {
          if (!isValueShape(t.shape)) return;
          const id = `${slot}\u0002${t.need.join("\u0001")}`;
          counts.set(id, (counts.get(id) ?? 0) + 1);
        });
      }
    }
    const group = { size: rows.length, counts };
    for (const row of rows) lineGroup.set(row, group);
  }

  doc.lines.forEach((tokens, row) => {
    const group = lineGroup.get(row);
    if (!group) return;
    tokens.forEach((t, slot) => {
      if (t.need.length === 0) return;
      let weight = t.kind === "keyword" ? CONTEXT_WEIGHT : 1;
      if (group.size > 1 && isValueShape(t.shape)) {
        weight = (group.counts.get(`${slot}\u0002${t.need.join("\u0001")}`) ?? 0) / group.size;
      }
      into.add({
        kind: t.kind,
        weight: weight * scale,
        specific: t.kind !== "keyword",
        display: display(t, tokens[slot + 1]),
        need: t.need,
        pathNeed: null,
      });
    });
    if (isErrorLine(tokens, doc.logs)) {
      const line = (doc.rawLines[row] ?? "").trim();
      into.add({
        kind: "error_line",
        weight: ERROR_LINE_WEIGHT * scale,
        specific: true,
        display: line.length > MAX_EXAMPLE_CHARS ? `${line.slice(0, MAX_EXAMPLE_CHARS)}...` : line,
        need: errorLineNeed(tokens),
        pathNeed: null,
      });
    }
  });
}

/** Adds everything a text states to an index. */
export function indexText(doc: TextDoc, index: FactIndex): void {
  for (const tokens of doc.lines) for (const t of tokens) for (const key of t.index) index.keys.add(key);
}

const TOKEN_SPECIFICITY: Record<string, number> = { stop: 0, keyword: 0.5 };

/** Without a source: the share of tokens that are specific (facts 1, keywords one half). */
export function textSpecificity(doc: TextDoc): number {
  let tokens = 0;
  let sum = 0;
  for (const line of doc.lines) {
    for (const t of line) {
      tokens++;
      sum += TOKEN_SPECIFICITY[t.kind] ?? 1;
    }
  }
  return tokens === 0 ? 0 : sum / tokens;
}

export function tokenSpecificity(tokens: readonly Token[]): number {
  if (tokens.length === 0) return 0;
  let sum = 0;
  for (const t of tokens) sum += TOKEN_SPECIFICITY[t.kind] ?? 1;
  return sum / tokens.length;
}
