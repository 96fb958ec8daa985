// Canaries: synthetic facts written into content before a compactor runs, so what the compactor
// kept can be told from text read afterwards (its output, or the agent's next output when the
// compactor's own output cannot be read). Pure and deterministic: the Python SDK's
// floorline/canaries.py is held to this module, character for character, by a cross-language test.
//
// Python parity: positions are found by scanning the same string in each language's own indexing,
// regexes are ASCII-only with explicit classes (no \d, \s, /i), and whitespace is [ \t\r\n] only.
import { sha256Hex } from "../guard/hash";

const CANARY_METHOD = "floorline-canaries/1";
export const CANARY_KINDS = ["number", "path", "hash", "error"] as const;
export type CanaryKind = (typeof CANARY_KINDS)[number];
/** At most this many canaries per receipt (and per chain in the SDKs). */
export const MAX_CANARIES = 16;
const PLANT_FORMATS = ["json", "log", "text"] as const;
export type PlantFormat = (typeof PLANT_FORMATS)[number];

/** A canary as the wire carries it: `text` is its distinctive value, exactly as planted. */
export interface Canary {
  id: string;
  kind: CanaryKind;
  text: string;
}

export interface PlantOptions {
  count: number;
  seed: string;
  /** The chain-wide index of the first canary: a second planting in a chain continues the first. */
  start?: number;
  /** How the content carries facts; detected when absent. */
  format?: PlantFormat;
}

export interface Planted {
  content: string;
  canaries: Canary[];
  format: PlantFormat;
}

export interface CanaryCheck {
  /** Ids of the canaries whose text is present, in planting order. */
  surviving: string[];
  lost: string[];
  checked_text_bytes: number;
}

const NUMBER_KEYS = [
  "ledger_offset",
  "quota_remaining",
  "retry_budget_ms",
  "shard_count",
  "batch_window_ms",
  "queue_depth_peak",
  "cache_epoch",
  "lease_term",
];
const PATH_KEYS = ["spool_file", "snapshot_path", "lock_file", "replay_log"];
const PATH_DIRS = ["var/lib/ledger", "srv/spool", "opt/replay", "var/cache/quota"];
const PATH_EXTS = ["db", "log", "bin", "json"];
const HASH_KEYS = ["checksum", "build_digest", "manifest_sha", "bundle_hash"];
const ERRORS: readonly (readonly [string, string])[] = [
  ["LEASE", "lease lost on shard"],
  ["QUOTA", "quota exhausted for tenant"],
  ["REPLAY", "replay stopped at segment"],
  ["SPOOL", "spool full on volume"],
];

const TIMESTAMP =
  "(?:\\[?[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?\\]?|\\[?[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?\\]?)";
const LEVEL_WORDS =
  "TRACE|DEBUG|INFO|NOTICE|WARNING|WARN|ERROR|FATAL|CRITICAL|trace|debug|info|notice|warning|warn|error|fatal|critical|Trace|Debug|Info|Notice|Warning|Warn|Error|Fatal|Critical";
const LEVEL = `(?:\\[(?:${LEVEL_WORDS})\\]|<(?:${LEVEL_WORDS})>|(?:${LEVEL_WORDS}):?|level=[A-Za-z]+)`;
/** A log line's prefix: a timestamp, a level, or both, each followed by blanks. */
const PREFIX = new RegExp(`^(${TIMESTAMP}[ \\t]+)?(${LEVEL}[ \\t]+)?`);

function isBlank(c: string): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n";
}

function stripBlank(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isBlank(s[a] as string)) a++;
  while (b > a && isBlank(s[b - 1] as string)) b--;
  return s.slice(a, b);
}

/** json when it parses as JSON; log when most of its non-empty lines start like log lines; else text. */
export function detectPlantFormat(content: string): PlantFormat {
  const trimmed = stripBlank(content);
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      JSON.parse(trimmed);
      return "json";
    } catch {
      // Not JSON after all: read it as lines.
    }
  }
  let lines = 0;
  let prefixed = 0;
  for (const line of content.split("\n")) {
    if (stripBlank(line) === "") continue;
    lines++;
    if ((PREFIX.exec(line)?.[0] ?? "") !== "") prefixed++;
  }
  return lines >= 2 && prefixed * 2 > lines ? "log" : "text";
}

interface Fact {
  canary: Canary;
  json: string;
  log: string;
  sentence: string;
  /** Picks where it goes among the places the format offers. */
  place: number;
}

function spaced(key: string): string {
  return key.replaceAll("_", " ");
}

function makeFact(seed: string, index: number, attempt: number): Fact {
  const h = sha256Hex(`${CANARY_METHOD}\n${seed}\n${index}${attempt === 0 ? "" : `\n${attempt}`}`);
  const n = (a: number, b: number) => Number.parseInt(h.slice(a, b), 16);
  const kind = CANARY_KINDS[index % CANARY_KINDS.length] as CanaryKind;
  const id = `cn-${h.slice(0, 8)}`;
  const place = n(56, 64);
  if (kind === "number") {
    const key = NUMBER_KEYS[n(8, 10) % NUMBER_KEYS.length] as string;
    const value = String(100000 + (n(10, 18) % 900000));
    return {
      canary: { id, kind, text: value },
      json: `"${key}": ${value}`,
      log: `${key}=${value}`,
      sentence: `The ${spaced(key)} is ${value}.`,
      place,
    };
  }
  if (kind === "path") {
    const pick = n(8, 10) % PATH_KEYS.length;
    const key = PATH_KEYS[pick] as string;
    const dir = PATH_DIRS[n(18, 20) % PATH_DIRS.length] as string;
    const ext = PATH_EXTS[n(20, 22) % PATH_EXTS.length] as string;
    const path = `/${dir}/${key.split("_")[0]}-${h.slice(22, 28)}.${ext}`;
    return {
      canary: { id, kind, text: path },
      json: `"${key}": "${path}"`,
      log: `${key}=${path}`,
      sentence: `The ${spaced(key)} is ${path}.`,
      place,
    };
  }
  if (kind === "hash") {
    const key = HASH_KEYS[n(8, 10) % HASH_KEYS.length] as string;
    const digest = h.slice(28, 44);
    return {
      canary: { id, kind, text: digest },
      json: `"${key}": "${digest}"`,
      log: `${key}=${digest}`,
      sentence: `The ${spaced(key)} is ${digest}.`,
      place,
    };
  }
  const [word, message] = ERRORS[n(8, 10) % ERRORS.length] as readonly [string, string];
  const code = `ERR_${word}_${1000 + (n(44, 52) % 9000)}`;
  const detail = `${message} ${1 + (n(52, 56) % 64)}`;
  return {
    canary: { id, kind, text: code },
    json: `"last_error": "${code}: ${detail}"`,
    log: `${code}: ${detail}`,
    sentence: `The last error was ${code}: ${detail}.`,
    place,
  };
}

function clashes(fact: Fact, content: string, format: PlantFormat, taken: Set<string>): boolean {
  if (content.includes(fact.canary.text) || taken.has(fact.canary.text) || taken.has(fact.canary.id)) return true;
  // A key the object already has would make a duplicate member.
  if (format === "json") return content.includes(fact.json.slice(0, fact.json.indexOf(":")));
  return false;
}

function facts(content: string, format: PlantFormat, seed: string, start: number, count: number): Fact[] {
  const made: Fact[] = [];
  const taken = new Set<string>();
  for (let k = 0; k < count; k++) {
    let attempt = 0;
    let fact = makeFact(seed, start + k, attempt);
    while (clashes(fact, content, format, taken)) fact = makeFact(seed, start + k, ++attempt);
    taken.add(fact.canary.text);
    taken.add(fact.canary.id);
    if (format === "json") taken.add(fact.json.slice(0, fact.json.indexOf(":")));
    made.push(fact);
  }
  return made;
}

/** Where each piece goes (positions in the original content), assembled in one pass. */
function assemble(content: string, pieces: { at: number; text: string }[]): string {
  const ordered = pieces.map((p, k) => ({ ...p, k })).sort((a, b) => a.at - b.at || a.k - b.k);
  let out = "";
  let last = 0;
  for (const p of ordered) {
    out += content.slice(last, p.at) + p.text;
    last = p.at;
  }
  return out + content.slice(last);
}

/** The top-level objects a field can go into: the document itself, or an array's object elements. */
function jsonTargets(content: string): [number, number][] {
  let open = 0;
  while (open < content.length && isBlank(content[open] as string)) open++;
  let close = content.length - 1;
  while (close > open && isBlank(content[close] as string)) close--;
  if (content[open] === "{") return [[open, close]];
  const targets: [number, number][] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = open; i <= close; i++) {
    const c = content[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 1 && c === "{") start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 1 && c === "}" && start >= 0) {
        targets.push([start, i]);
        start = -1;
      }
    }
  }
  return targets;
}

function plantJson(content: string, made: Fact[]): string {
  const targets = jsonTargets(content);
  if (targets.length === 0)
    throw new RangeError(
      "plantCanaries: JSON whose top level is neither an object nor an array of objects has no field to carry a fact",
    );
  const spacedStyle = content.includes(", ") || content.includes(": ");
  const pieces: { at: number; text: string }[] = [];
  const filled = new Set<number>();
  for (const fact of made) {
    const [open, close] = targets[fact.place % targets.length] as [number, number];
    let indentEnd = open + 1;
    while (indentEnd < close && isBlank(content[indentEnd] as string)) indentEnd++;
    const indent = content.slice(open + 1, indentEnd);
    let last = close - 1;
    while (last > open && isBlank(content[last] as string)) last--;
    const field = spacedStyle ? fact.json : fact.json.replace('": ', '":');
    // A pretty-printed object gets the line break and indent of its first member.
    const separator = indent.includes("\n")
      ? `,${indent.includes("\r\n") ? "\r\n" : "\n"}${indent.slice(indent.lastIndexOf("\n") + 1)}`
      : spacedStyle
        ? ", "
        : ",";
    if (last > open) pieces.push({ at: last + 1, text: separator + field });
    else if (filled.has(open)) pieces.push({ at: close, text: separator + field });
    else pieces.push({ at: close, text: field });
    filled.add(open);
  }
  return assemble(content, pieces);
}

/** The neighbour's level in its own shape and case, naming the fact's level (error lines at error). */
function levelAs(level: string, word: "error" | "info"): string {
  if (level.startsWith("level=")) return level.replace(/^level=[A-Za-z]+/, `level=${word}`);
  return level.replace(/[A-Za-z]+/, (found) =>
    found === found.toUpperCase()
      ? word.toUpperCase()
      : found === found.toLowerCase()
        ? word
        : word[0]?.toUpperCase() + word.slice(1),
  );
}

function plantLog(content: string, made: Fact[]): string {
  const newline = content.includes("\r\n") ? "\r\n" : "\n";
  const lines = content.split("\n");
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const prefixes = lines.map((line): [string, string] | null => {
    const m = PREFIX.exec(line);
    return m && m[0] !== "" ? [m[1] ?? "", m[2] ?? ""] : null;
  });
  const first = prefixes.find((p) => p !== null) ?? ["", ""];
  const places = [...starts.slice(1).filter((s) => s < content.length), content.length];
  const pieces = made.map((fact) => {
    const at = places[fact.place % places.length] as number;
    // The nearest line before the place that has a prefix; else the content's first that has one.
    let j = starts.length - 1;
    while (j > 0 && (starts[j] as number) >= at) j--;
    while (j > 0 && prefixes[j] === null) j--;
    const [time, level] = prefixes[j] ?? first;
    const line = time + levelAs(level, fact.canary.kind === "error" ? "error" : "info") + fact.log;
    if (at < content.length || content.endsWith("\n") || content === "") return { at, text: line + newline };
    return { at, text: newline + line };
  });
  return assemble(content, pieces);
}

function plantText(content: string, made: Fact[]): string {
  // After a sentence that ends in a space, and at the start of a line after one that ends a sentence.
  const places: number[] = [];
  for (let i = 1; i < content.length - 1; i++) {
    const c = content[i];
    if ((c === " " || c === "\n") && content[i - 1] === "." && content[i + 1] !== " " && content[i + 1] !== "\n")
      places.push(i + 1);
  }
  places.push(content.length);
  const pieces: { at: number; text: string }[] = [];
  const atEnd: string[] = [];
  for (const fact of made) {
    const at = places[fact.place % places.length] as number;
    if (at < content.length) pieces.push({ at, text: `${fact.sentence} ` });
    else atEnd.push(fact.sentence);
  }
  if (atEnd.length > 0) {
    const tail = atEnd.join(" ");
    const last = stripBlank(content).slice(-1);
    let text: string;
    if (content === "") text = tail;
    else if (content.endsWith("\n")) text = `${tail}\n`;
    else if (last === "." || last === "!" || last === "?") text = ` ${tail}`;
    else text = `\n${tail}`;
    pieces.push({ at: content.length, text });
  }
  return assemble(content, pieces);
}

/**
 * The content with `count` canaries written into it as its format carries facts: a member of a
 * JSON object (the document still parses), a log line with its neighbour's timestamp and level,
 * or a sentence of text. Canary `start + k` of a seed is always the same fact.
 */
export function plantCanaries(content: string, options: PlantOptions): Planted {
  const { count, seed } = options;
  const start = options.start ?? 0;
  if (!Number.isInteger(count) || count < 1 || count > MAX_CANARIES)
    throw new RangeError(`plantCanaries: count must be a whole number from 1 to ${MAX_CANARIES}, not ${count}`);
  if (!Number.isInteger(start) || start < 0)
    throw new RangeError(`plantCanaries: start must be a whole number of 0 or more, not ${start}`);
  const format = options.format ?? detectPlantFormat(content);
  if (format === "json" && detectPlantFormat(content) !== "json")
    throw new RangeError("plantCanaries: format json, but the content does not parse as JSON");
  const made = facts(content, format, seed, start, count);
  const planted =
    format === "json"
      ? plantJson(content, made)
      : format === "log"
        ? plantLog(content, made)
        : plantText(content, made);
  return { content: planted, canaries: made.map((f) => f.canary), format };
}

/** A canary survives in `text` when its distinctive value (its `text`) is present there, verbatim. */
export function checkCanaries(text: string, canaries: readonly Canary[]): CanaryCheck {
  const surviving: string[] = [];
  const lost: string[] = [];
  for (const c of canaries) (text.includes(c.text) ? surviving : lost).push(c.id);
  return { surviving, lost, checked_text_bytes: Buffer.byteLength(text, "utf8") };
}
