// What compression lost, between a cached original and its compressed text: a structural
// diff for JSON (keys dropped or added per path, arrays shortened, values changed) and a line
// diff for text. Pure and bounded: inputs over DIFF_MAX_CHARS are not diffed, the JSON walk is
// linear in the smaller document, and the line diff gives up on an edit script (keeping only
// the counts) when it would cost more than LINE_DIFF_BUDGET steps.

export const DIFF_MAX_CHARS = 4 * 1024 * 1024;
/** Steps (lines × edit distance) the line diff may spend on an edit script. */
const LINE_DIFF_BUDGET = 20_000_000;
/** Diff lines kept for display; the counts always cover everything. */
const MAX_DIFF_LINES = 2_000;
const MAX_PATHS = 200;
const EXAMPLE_CHARS = 80;

type PathChangeKind = "dropped" | "added" | "shortened" | "changed" | "type_changed";

interface PathChange {
  /** `[]` stands for every element of an array: `[].items[].sku`. */
  path: string;
  kind: PathChangeKind;
  /** In how many places it happened... */
  count: number;
  /** ...of how many places compared (objects at the parent path, arrays, or values). */
  of: number;
  /** For `shortened`: elements before and after, summed over the arrays. */
  before?: number;
  after?: number;
  /** For `changed` and `type_changed`: the first one seen. */
  example?: { before: string; after: string };
}

interface JsonDiff {
  kind: "json";
  /** Largest losses first. */
  changes: PathChange[];
  /** More distinct paths changed than are listed. */
  truncated: boolean;
}

export interface DiffLine {
  op: "same" | "removed" | "added";
  text: string;
  /** 1-based line numbers in the original and the compressed text. */
  before?: number;
  after?: number;
}

interface TextDiff {
  kind: "text";
  lines_before: number;
  lines_after: number;
  /** Lines only in the original / only in the compressed text (as a multiset when there is no script). */
  removed: number;
  added: number;
  /** The edit script around each change (3 lines of context), or null when it would cost too much. */
  script: DiffLine[] | null;
  /** The script was cut at MAX_DIFF_LINES lines. */
  script_truncated: boolean;
}

export type ContentDiff = JsonDiff | TextDiff | { kind: "too_large"; limit: number };

/** The diff of two texts: structural when both parse as JSON (objects or arrays), else by lines. */
export function diffContent(original: string, compressed: string): ContentDiff {
  if (original.length > DIFF_MAX_CHARS || compressed.length > DIFF_MAX_CHARS) {
    return { kind: "too_large", limit: DIFF_MAX_CHARS };
  }
  const a = parseStructured(original);
  const b = a === undefined ? undefined : parseStructured(compressed);
  if (a !== undefined && b !== undefined) return diffJson(a, b);
  return diffLines(original, compressed);
}

function parseStructured(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

interface Tally {
  kind: PathChangeKind;
  path: string;
  count: number;
  of: number;
  before: number;
  after: number;
  example?: { before: string; after: string };
}

/** Structural diff: both documents walked together, array elements paired by position. */
export function diffJson(original: unknown, compressed: unknown): JsonDiff {
  const tallies = new Map<string, Tally>();
  const tally = (kind: PathChangeKind, path: string): Tally => {
    const key = `${kind} ${path}`;
    let t = tallies.get(key);
    if (!t) {
      t = { kind, path, count: 0, of: 0, before: 0, after: 0 };
      tallies.set(key, t);
    }
    return t;
  };
  // An explicit stack: a deep document must not overflow the call stack.
  const stack: Array<[unknown, unknown, string]> = [[original, compressed, ""]];
  while (stack.length > 0) {
    const [a, b, path] = stack.pop() as [unknown, unknown, string];
    const ta = typeOf(a);
    const tb = typeOf(b);
    if (ta !== tb) {
      const t = tally("type_changed", path || "(root)");
      t.count++;
      t.example ??= { before: preview(a), after: preview(b) };
      continue;
    }
    if (ta === "array") {
      const xs = a as unknown[];
      const ys = b as unknown[];
      const t = tally("shortened", path || "(root)");
      t.of++;
      t.before += xs.length;
      t.after += ys.length;
      if (ys.length < xs.length) t.count++;
      for (let i = Math.min(xs.length, ys.length) - 1; i >= 0; i--) stack.push([xs[i], ys[i], `${path}[]`]);
    } else if (ta === "object") {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      for (const key of Object.keys(x)) {
        const child = joinPath(path, key);
        tally("dropped", child).of++;
        if (Object.hasOwn(y, key)) stack.push([x[key], y[key], child]);
        else tally("dropped", child).count++;
      }
      for (const key of Object.keys(y)) {
        if (Object.hasOwn(x, key)) continue;
        const t = tally("added", joinPath(path, key));
        t.count++;
      }
    } else {
      const t = tally("changed", path || "(root)");
      t.of++;
      if (!Object.is(a, b)) {
        t.count++;
        t.example ??= { before: preview(a), after: preview(b) };
      }
    }
  }
  const severity: Record<PathChangeKind, number> = { dropped: 0, type_changed: 1, shortened: 2, changed: 3, added: 4 };
  const changes = [...tallies.values()]
    .filter((t) => t.count > 0)
    .map((t): PathChange => {
      const change: PathChange = {
        path: t.path,
        kind: t.kind,
        count: t.count,
        of: t.kind === "added" ? t.count : t.of,
      };
      if (t.kind === "shortened") Object.assign(change, { before: t.before, after: t.after });
      if (t.example) change.example = t.example;
      return change;
    })
    .sort((p, q) => severity[p.kind] - severity[q.kind] || q.count - p.count || p.path.localeCompare(q.path));
  return { kind: "json", changes: changes.slice(0, MAX_PATHS), truncated: changes.length > MAX_PATHS };
}

function typeOf(v: unknown): "array" | "object" | "null" | "string" | "number" | "boolean" | "other" {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  const t = typeof v;
  return t === "object" || t === "string" || t === "number" || t === "boolean" ? t : "other";
}

function joinPath(path: string, key: string): string {
  const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  return path === "" ? name : `${path}.${name}`;
}

function preview(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS - 1)}…` : text;
}

/** One sentence per change, the loss first: "[].items[].sku dropped in 24 of 24 items". */
export function describeChange(c: PathChange): string {
  const noun = elementNoun(c.path);
  switch (c.kind) {
    case "dropped":
      return c.count === c.of
        ? `${c.path} dropped in all ${c.of} ${plural(noun, c.of)}`
        : `${c.path} dropped in ${c.count} of ${c.of} ${plural(noun, c.of)}`;
    case "added":
      return `${c.path} added in ${c.count} ${plural(noun, c.count)}`;
    case "shortened":
      return `${c.path} shortened in ${c.count} of ${c.of} ${plural("array", c.of)}: ${c.before} → ${c.after} elements`;
    case "changed":
      return `${c.path} changed in ${c.count} of ${c.of} ${plural("value", c.of)} (first: ${c.example?.before} → ${c.example?.after})`;
    case "type_changed":
      return `${c.path} changed type in ${c.count} ${plural("place", c.count)} (first: ${c.example?.before} → ${c.example?.after})`;
  }
}

/** What the objects holding a key are called: the array they are elements of ("items"), else "objects". */
function elementNoun(path: string): string {
  const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "";
  const match = /([A-Za-z_$][\w$]*)\[\]$/.exec(parent);
  // An array named with a plural ("items") names its elements; any other is just "elements".
  if (match?.[1] && match[1].length > 2 && match[1].endsWith("s")) return match[1];
  return parent.endsWith("[]") ? "elements" : "objects";
}

function plural(noun: string, n: number): string {
  const one = noun.endsWith("s") ? noun.slice(0, -1) : noun;
  return n === 1 ? one : `${one}s`;
}

/** Line diff: common head and tail trimmed, then Myers' O(ND) edit script within the budget. */
/** A text diff's answer; `script` is null when the edit script would cost too much to find. */
function textDiff(
  a: readonly string[],
  b: readonly string[],
  counts: { removed: number; added: number },
  script: DiffLine[] | null,
): TextDiff {
  return {
    kind: "text",
    lines_before: a.length,
    lines_after: b.length,
    ...counts,
    script: script?.slice(0, MAX_DIFF_LINES) ?? null,
    script_truncated: script !== null && script.length > MAX_DIFF_LINES,
  };
}

export function diffLines(original: string, compressed: string): TextDiff {
  const a = original.split("\n");
  const b = compressed.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops = myers(midA, midB);
  if (!ops) {
    const { removed, added } = multisetDifference(midA, midB);
    return textDiff(a, b, { removed, added }, null);
  }
  const full: DiffLine[] = [];
  let i = 0;
  let j = 0;
  const push = (op: DiffLine["op"]) => {
    if (op === "same") full.push({ op, text: a[i] ?? "", before: ++i, after: ++j });
    else if (op === "removed") full.push({ op, text: a[i] ?? "", before: ++i });
    else full.push({ op, text: b[j] ?? "", after: ++j });
  };
  for (let k = 0; k < head; k++) push("same");
  for (const op of ops) push(op);
  for (let k = 0; k < tail; k++) push("same");
  const removed = full.filter((l) => l.op === "removed").length;
  const added = full.filter((l) => l.op === "added").length;
  // Only the changes and three lines of context around each.
  const keep = new Uint8Array(full.length);
  full.forEach((l, k) => {
    if (l.op === "same") return;
    for (let c = Math.max(0, k - 3); c <= Math.min(full.length - 1, k + 3); c++) keep[c] = 1;
  });
  return textDiff(
    a,
    b,
    { removed, added },
    full.filter((_, k) => keep[k] === 1),
  );
}

/** Myers' greedy edit script, or null when it would take more than LINE_DIFF_BUDGET steps. */
function myers(a: readonly string[], b: readonly string[]): Array<"same" | "removed" | "added"> | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  // One side empty (a text cut short, or only added to): the script is plain.
  if (n === 0 || m === 0) return [...Array<"removed">(n).fill("removed"), ...Array<"added">(m).fill("added")];
  const maxD = Math.min(max, Math.floor(LINE_DIFF_BUDGET / Math.max(1, max)));
  const offset = maxD + 1;
  const width = 2 * maxD + 3;
  const v = new Int32Array(width);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
          ? (v[offset + k + 1] ?? 0)
          : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m, d);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], offset: number, n: number, m: number, dEnd: number) {
  const ops: Array<"same" | "removed" | "added"> = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push("same");
      x--;
      y--;
    }
    ops.push(down ? "added" : "removed");
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push("same");
    x--;
    y--;
  }
  return ops.reverse();
}

function multisetDifference(a: readonly string[], b: readonly string[]): { removed: number; added: number } {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of b) {
    const c = counts.get(line) ?? 0;
    if (c > 0) counts.set(line, c - 1);
    else added++;
  }
  let removed = 0;
  for (const c of counts.values()) removed += c;
  return { removed, added };
}
