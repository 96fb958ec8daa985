// Generated measurement cases (seeded) that walk the tokeniser's and the JSON reader's corners:
// values in every notation, words, non-ASCII, punctuation, logs, nested and odd JSON, base64,
// CCR markers, mutations of a source the way compressors make them. Shared by the tests that
// compare two implementations of the method.
import { seededRandom } from "./random";

export interface MeasureCase {
  content: string;
  source?: string | null;
  format?: "text" | "json" | "base64" | "any";
  required_fields?: string[];
  originals?: Record<string, string>;
}

const VALUES = (
  "10,000 4.50 #4412 $5 €12 £3 97% 4GB 5000ms 2nd 3rd 0.50 -7 +3 1e5 2.5E-3 007 1_000 12,34 " +
  "2026-05-02 2026/05/02 02.05.2026 05/02/2026 13/02/2026 2026-11-30T10:00:07Z 2026-11-30T10:00:07.120+05:30 " +
  "10:00 10:00:00 10:00:29Z 23:59:60 2pm 12am 10:00-10:29 25:00 v2 V3.1 3.9.0 1.2.3-rc.1 20.9 " +
  "3f2a9c1d8e7b 123e4567-e89b-12d3-a456-426614174000 sha256:abcdef0123456789 md5:0a1b2c3d4e5f " +
  "10.0.3.17 10.0.3.17:8080 256.1.1.1 https://x.io/a/ www.example.com/path ops@example.com a@b " +
  "--dry-run -v /v1/export ./a ~/x ../up src/app.ts C:\\x\\y r1000 A-1189 get_orders Node.js UTC+5:45 " +
  "status=200 ms=53 path=/orders id=r1001 level=error size=4gb user's don't 'quoted' x=y=z " +
  "4 GB 10 seconds 3 pm 9:30 a.m May 2nd 2 May 2026 =x x= ,x '' -- ... a.b. e.g. i.e. O'Brien's 1,234,567 0x1F"
).split(" ");
const WORDS = (
  "Parquet CSV PostgreSQL Postgres deploy failed scheduler memory leak jobs queued export migrate " +
  "various topics document discusses overview information the a of and to in is it summary " +
  "request timeout payment gateway answered disk full node shard query order customer items " +
  "gas ops abs bus's data's queries classes status analysis GPUs Error Traceback TypeError: Exception " +
  "ERROR INFO WARN May March june GB ms am pm"
).split(" ");
const UNICODE = [
  "café",
  "日本語",
  "🚀",
  "naïve",
  "\u00a0",
  "—",
  "…",
  "«x»",
  "\ufeff",
  "x\u2009y",
  "Ünïcödé",
  "𝔘nicode",
  "straße",
  "Привет",
  "\u3000",
];
const PUNCT = [
  ". ",
  ", ",
  "; ",
  ": ",
  "! ",
  "? ",
  " (",
  ") ",
  " [",
  "] ",
  ' "',
  '" ',
  " '",
  " | ",
  " * ",
  "\n",
  "\n\n",
  "  ",
  "\t",
  "\r\n",
  " . ",
  "!?",
];
const LEVELS = [
  "INFO",
  "ERROR",
  "WARN",
  "DEBUG",
  "FATAL",
  "[error]",
  "level=error",
  "Traceback",
  "TypeError:",
  "failed",
  "panic",
];
const UNITS = ["GB", "gigabytes", "ms", "seconds", "percent", "s", "h", "x", "k", "am", "pm", "jobs", "files"];
const MONTHS = ["May", "Jan", "sept", "December", "Oct."];

export class CaseRandom {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

export function sentence(r: CaseRandom): string {
  const parts: string[] = [];
  for (let n = r.int(1, 12); n > 0; n--) {
    const roll = r.next();
    if (roll < 0.35) parts.push(r.pick(VALUES));
    else if (roll < 0.7) parts.push(r.pick(WORDS));
    else if (roll < 0.78) parts.push(r.pick(UNICODE));
    else if (roll < 0.86) parts.push(`${r.int(1, 31)} ${r.pick(UNITS)}`);
    else if (roll < 0.92) parts.push(`${r.pick(MONTHS)} ${r.int(1, 31)}, ${r.int(1990, 2030)}`);
    else parts.push(r.pick(PUNCT));
  }
  return parts.join(r.chance(0.9) ? " " : "") + r.pick([".", "!", "?", "", ";", ". "]);
}

const PG_LEVELS = ["LOG", "ERROR", "WARNING", "DETAIL", "HINT", "STATEMENT", "FATAL", "warning", "Error"];

export function logText(r: CaseRandom): string {
  const lines: string[] = [];
  for (let i = 0, n = r.int(2, 14); i < n; i++) {
    const level = r.pick(LEVELS);
    const s = String(i % 60).padStart(2, "0");
    const roll = r.next();
    if (roll < 0.65)
      lines.push(
        `2026-11-30T10:00:${s}Z ${level} api request id=r${1000 + i} path=/orders status=${r.pick([200, 200, 500])} ms=${r.int(10, 90)}`,
      );
    // PostgreSQL's prefix puts the level sixth, after user@database; entries go on in DETAIL,
    // HINT and STATEMENT lines, or in indented ones (floorline-facts/4's salience).
    else if (roll < 0.8)
      lines.push(
        `2026-11-30 10:00:${s}.${r.int(100, 999)} UTC [${r.int(100, 999)}] app@db ${r.pick(PG_LEVELS)}:  ${sentence(r)}`,
      );
    else if (roll < 0.87) lines.push(`${r.pick(["\t", "    ", "  ", " "])}${sentence(r)}`);
    else lines.push(sentence(r));
  }
  return lines.join("\n");
}

export function text(r: CaseRandom): string {
  if (r.chance(0.3)) return logText(r);
  const out: string[] = [];
  for (let n = r.int(1, 6); n > 0; n--) out.push(sentence(r));
  return out.join(r.chance(0.8) ? " " : "\n");
}

function shuffled<T>(r: CaseRandom, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

type J = null | boolean | number | string | J[] | { [k: string]: J };

export function jsonValue(r: CaseRandom, depth = 0): J {
  const roll = r.next();
  if (depth > 3 || roll < 0.45) {
    return r.pick<() => J>([
      () => r.int(-5, 1_000_000),
      () => Math.round(r.next() * 10000) / 100,
      () => true,
      () => false,
      () => null,
      () => r.pick(VALUES),
      () => r.pick(WORDS),
      () => sentence(r),
      () => r.pick(UNICODE),
      () => `  ${r.pick(WORDS)} `,
      () => logText(r),
    ])();
  }
  if (roll < 0.7) return Array.from({ length: r.int(0, 4) }, () => jsonValue(r, depth + 1));
  const keys = ["id", "sku", "name", "items", "status", "price", "customer", "a.b", "x", "", "$", "K=V", r.pick(WORDS)];
  const out: { [k: string]: J } = {};
  for (let n = r.int(0, 5); n > 0; n--) out[r.pick(keys)] = jsonValue(r, depth + 1);
  return out;
}

/** JSON text of a value in one of several layouts, sometimes with escapes, repeated keys or odd numbers. */
export function jsonText(r: CaseRandom, value: J): string {
  let s = JSON.stringify(value, null, r.chance(0.3) ? 2 : undefined);
  if (r.chance(0.2)) s = s.replace(/[a-z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  if (r.chance(0.1)) s = s.replace(/\{"/, '{"id":1,"');
  if (r.chance(0.1)) s = s.replace(/: ?(\d+)/, ": $1.50e+2");
  if (r.chance(0.05)) s = s.replace(/"/, '"\\n\\t\\"');
  return s;
}

export function mutate(r: CaseRandom, source: string): string {
  const roll = r.next();
  const words = source.split(" ");
  if (roll < 0.25) return words.filter(() => r.chance(0.6)).join(" ");
  if (roll < 0.4)
    return words
      .slice(0, Math.max(1, Math.floor(words.length / 3)))
      .join(" ")
      .repeat(r.int(1, 3));
  if (roll < 0.55) {
    const some = Array.from({ length: Math.min(words.length, 4) }, () => r.pick(words));
    return `The document discusses various topics. ${some.join(" ")}`;
  }
  if (roll < 0.7) return text(r);
  if (roll < 0.8) return source.replace(/\n/g, " ");
  if (roll < 0.85) return source.split("\n").reverse().join("\n");
  // Every word kept, in another order (floorline-facts/4's order test).
  if (roll < 0.9) return shuffled(r, words).join(" ");
  return source;
}

function marker(r: CaseRandom, key: string): string {
  return r.pick([
    `[5 items compressed to 1. Retrieve more: hash=${key}]`,
    `<<ccr:${key}>>`,
    `hash=${key.toUpperCase()}`,
    `hash=${key}0`,
  ]);
}

function hex64(r: CaseRandom): string {
  let s = "";
  for (let i = 0; i < 16; i++) s += r.int(0, 15).toString(16);
  return s;
}

const ODD = [
  "",
  " ",
  "\n",
  "{",
  "[1, 2,]",
  '{"a": NaN}',
  "\ud800 lone",
  "x".repeat(200),
  "0123456789abcdef".repeat(2),
  "QUJDREVGR0hJSktMTU5PUA==",
  '   {"a":1}',
  "9".repeat(30),
  '{"a":1,"a":2,"b":{"a":3,"a":[1,2]}}',
  '[[[[["deep"]]]]]',
  '{"":{"":{"x":1}},"a":[[],{}],"b":[{"c":[{"d":"e"}]}]}',
  '"just a string with 10,000 jobs and 4 GB"',
  "12.50",
  "true",
  "null",
  '{"k":"\\ud83d\\ude80 rocket \\u00e9"}',
  "aGVsbG8gd29ybGQ=",
  "SGVsbG8=",
];

export function generatedCases(count: number, seed = 20261201): MeasureCase[] {
  const r = new CaseRandom(seed);
  const cases: MeasureCase[] = [];
  for (let n = 0; n < count; n++) {
    const kind = n % 8;
    let c: MeasureCase;
    if (kind <= 2) {
      const source = text(r);
      c = { content: mutate(r, source), source, format: r.pick(["text", "any"] as const) };
      if (r.chance(0.3)) {
        const key = hex64(r);
        c.content += ` ${marker(r, key)}`;
        c.originals = { [key]: r.pick([source, text(r), "", jsonText(r, jsonValue(r))]) };
      }
    } else if (kind === 3) {
      c = { content: text(r), format: r.pick(["text", "any"] as const) };
    } else if (kind <= 5) {
      const doc = jsonValue(r);
      const source = jsonText(r, doc);
      let contentDoc = doc;
      if (doc && typeof doc === "object" && !Array.isArray(doc) && r.chance(0.6)) {
        contentDoc = Object.fromEntries(Object.entries(doc).filter(() => r.chance(0.6)));
      }
      const content = r.chance(0.8) ? jsonText(r, contentDoc) : source.slice(0, source.length >> 1);
      c = { content, source: r.chance(0.8) ? source : null, format: r.pick(["json", "any", "text"] as const) };
      if (r.chance(0.5)) {
        const fields = ["id", "items[].sku", "items.0", "customer.id", "status", "a", "items", "x.y[]"];
        c.required_fields = Array.from({ length: r.int(1, 3) }, () => r.pick(fields));
      }
      if (r.chance(0.15)) {
        const key = hex64(r);
        c.content = `${c.content} ${marker(r, key)}`;
        c.originals = { [key]: source };
      }
    } else if (kind === 6) {
      let raw = Buffer.from(r.chance(0.5) ? text(r) : jsonText(r, jsonValue(r)), "utf8");
      if (r.chance(0.3))
        raw = Buffer.concat([
          raw.subarray(0, r.int(0, raw.length)),
          Buffer.from([r.pick([0x80, 0xc0, 0xed, 0xf5, 0xff])]),
        ]);
      let encoded = raw.toString("base64");
      if (r.chance(0.15)) encoded = encoded.replace(/=+$/, "");
      c = { content: encoded, source: r.chance(0.5) ? null : text(r), format: r.pick(["base64", "any"] as const) };
    } else {
      const odd = r.pick(ODD);
      c = {
        content: odd,
        source: r.pick([null, odd, "", text(r), r.pick(ODD)]),
        format: r.pick(["any", "text", "json", "base64"] as const),
      };
      if (r.chance(0.3)) c.required_fields = [r.pick(["a", "b.a", "", "x", "a.0"])];
    }
    cases.push(c);
  }
  return cases;
}
