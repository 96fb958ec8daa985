// fast-check inputs of the measurement, shared by the tests that hold it to its properties
// (properties.test.ts) and to its reference implementation (reference.test.ts).
import fc from "fast-check";

const pieces = fc.constantFrom(
  "Release 3.9.0",
  "(2026-05-02)",
  "May 2, 2026",
  "4 GB",
  "10,000 jobs",
  "#4412",
  "/v1/export",
  "https://example.com/x",
  "id=r1000",
  "ERROR",
  "2026-11-30T10:00:07Z",
  "hash=a1b2c3d4e5f6a7b8",
  "<<ccr:0123456789abcdef>>",
  "the",
  "various topics",
  ". ",
  "\n",
  '{"a": [1, {"b": "x"}]}',
  "{",
  "]",
  "\u00e9\u{1d11e}",
  "\ud800",
);
export const text = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(pieces, { maxLength: 30 }).map((p) => p.join(" ")),
);
export const format = fc.constantFrom("text", "json", "base64", "any") as fc.Arbitrary<
  "text" | "json" | "base64" | "any"
>;
export const options = fc.record({
  source: fc.option(text, { nil: undefined }),
  format,
  requiredFields: fc.array(fc.constantFrom("a", "a.b", "items[].sku"), { maxLength: 2 }),
});
/** A content: text, or base64 of text. */
export const content = fc.oneof(
  text,
  text.map((t) => Buffer.from(t).toString("base64")),
);

/**
 * Pieces that walk the rules of floorline-facts/4 one by one: joins across tokens, currencies,
 * number words, German capitals, CJK, log levels and entries, tracebacks, a diff's notation,
 * JSON that repeats or reshapes its keys, CCR markers.
 */
const rulePieces = fc.constantFrom(
  ...[
    "May 2, 2026",
    "May 2",
    "April 2026",
    "2 May 2026",
    "4 GB",
    "4.2 million USD",
    "USD 4.2M",
    "€ 5",
    "$3 billion",
    "2 pm",
    "9:30 am",
    "10:00-10:29",
    "10,000 jobs",
    "1.2e6",
    "97 %",
    "2nd",
    "#4412",
    "fifteen",
    "twenty-one",
    "zwölf",
    "one",
    "GNU/Linux",
    "--to=iec-i",
    "x=TypeError",
    "level=warn",
    "level=error",
    "id=r1000",
    "ERROR",
    "WARNING",
    "DETAIL:",
    "STATEMENT:",
    "LOG:",
    "2026-12-03 22:14:59.177 UTC [5425]",
    "app@orders",
    "2026-11-30T10:00:07Z",
    "Traceback (most recent call last):",
    '  File "x.py", line 3',
    "\tat x.Y(Y.java:12)",
    "TypeError: boom",
    "failed",
    "@@ -1,2 +1,3 @@",
    "--- a/x.ts",
    "+++ b/x.ts",
    "diff --git a/x b/x",
    "index 3f2a9c1..8e7b6d5 100644",
    " context",
    "\\ No newline",
    "+added 42",
    "-removed 17",
    "Speicherleck",
    "Parquet-Export",
    "und",
    "der",
    "für",
    "mit",
    "Endpunkt",
    "最大8 GB",
    "日本語。",
    "Node.js",
    "UTC+5:45",
    "PostgreSQL",
    "CSV",
    "O'Brien's",
    "3f2a9c1d8e7b",
    "10.0.3.17:8080",
    "ops@example.com",
    "1:1:1:1:1",
    "hash=a1b2c3d4e5f6a7b8",
    "<<ccr:0123456789abcdef>>",
    "the",
    "various topics",
    '{"a":1,"a":2}',
    '{"k=v":"x","a.b":1,"a":{"b":1}}',
    "\u00e9\u{1d11e}",
    "\ud800",
  ],
);
const separator = fc.constantFrom(" ", " ", " ", "\n", "", ". ", "\n\n", "\t");
const ruleText = fc
  .array(fc.tuple(rulePieces, separator), { maxLength: 40 })
  .map((parts) => parts.map(([p, s]) => p + s).join(""));
const ruleJson = fc
  .dictionary(
    fc.constantFrom("id", "a", "a.b", "", "$", "K=V", "name", "items", "msg"),
    fc.oneof(ruleText, fc.integer(), fc.constant(null), fc.array(ruleText, { maxLength: 3 })),
    { maxKeys: 5 },
  )
  .map((o) => JSON.stringify(o));

/** A source and a content made of the rules' pieces, the content often taken from the source. */
export const ruleCase = fc
  .record({
    source: fc.option(fc.oneof(ruleText, ruleText, ruleJson), { nil: undefined }),
    other: fc.oneof(ruleText, ruleJson),
    take: fc.constantFrom("other", "words", "shuffled", "twice", "base64"),
    seed: fc.nat(),
    format,
    requiredFields: fc.array(fc.constantFrom("a", "a.b", "items[].sku", "id"), { maxLength: 2 }),
  })
  .map(({ source, other, take, seed, format, requiredFields }) => {
    const words = (source ?? other).split(" ");
    const pick = (i: number) => ((seed + i * 2654435761) >>> 0) % 7;
    const content =
      take === "words"
        ? words.filter((_, i) => pick(i) < 4).join(" ")
        : take === "shuffled"
          ? words.map((_, i) => words[(i * 11 + seed) % words.length]).join(" ")
          : take === "twice"
            ? `${source ?? other} ${source ?? other}`
            : take === "base64"
              ? Buffer.from(source ?? other).toString("base64")
              : other;
    const originals = new Map([
      ["a1b2c3d4e5f6a7b8", source ?? ""],
      ["0123456789abcdef", other],
    ]);
    return { content, options: { source, format, requiredFields, originals } };
  });
