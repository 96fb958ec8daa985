// The rules of floorline-facts/2 that make the method hold on chains it was not fitted to
// (docs/measurement.md, "Why it holds on chains it has not seen"): each test names one rule
// and fails when that rule breaks.
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";
import { Interner } from "@/lib/measure/intern";
import { tokenizeLine } from "@/lib/measure/scan";
import { collidingTokens, fnv1a } from "../../support/fnv-collisions";

const kept = (content: string, source: string, format: "text" | "json" | "any" | "base64" = "text") =>
  measure(content, { source, format });

describe("numbers in any notation", () => {
  it("reads k, M, bn, magnitude words and scientific notation as the number written out", () => {
    const source =
      "Revenue 4,200,000 USD; 1,200,000 API calls; 12,400 orders; ARR 3,900,000 EUR; 3,000,000,000 rows; 0.0025 error rate.";
    const m = kept(
      "Revenue $4.2M; 1.2e6 API calls; 12.4k orders; ARR 3.9 million EUR; 3bn rows; 2.5E-3 error rate.",
      source,
    );
    expect(m.lost_examples).toEqual([]);
    expect(m.facts?.lost).toBe(0);
  });

  it("keeps units that look like magnitudes apart: 10kb is kilobytes, 5m is not five million", () => {
    expect(tokenizeLine("10kb 5m 4B $1.2B 10K").map((t) => t.need[0])).toEqual([
      "n:10|kb",
      "n:5|m",
      "n:4|b",
      "n:1200000000|usd",
      "n:10000",
    ]);
  });

  it("reads a currency written before its number as its unit", () => {
    const source = "Revenue 4,200,000 USD, costs 1,500,000 EUR, fee 5 GBP.";
    expect(kept("Revenue USD 4.2M, costs EUR 1.5 million, fee £ 5.", source).facts?.lost).toBe(0);
  });

  it("reads a percent sign written apart as the unit", () => {
    expect(kept("Churn 1.7 %.", "Churn fell to 1.7%.").facts?.lost).toBe(0);
  });

  it("splits CSV fields at commas that are not thousands separators", () => {
    expect(tokenizeLine("north,2026-04,1204,88412.50,31 and 10,000,000").map((t) => t.text)).toEqual([
      "north",
      "2026-04",
      "1204",
      "88412.50",
      "31",
      "and",
      "10,000,000",
    ]);
  });
});

describe("dates", () => {
  it("reads a month of a year in both notations, and a full date states its month and its day", () => {
    expect(kept("Sales for 2026-04.", "Sales for April 2026.").facts?.lost).toBe(0);
    expect(kept("Due 2026-04-15 and 2026-02-24.", "Due in April 2026, review on Feb 24.").facts?.lost).toBe(0);
    expect(kept("Due in April 2026.", "Due 2026-04-15.").facts?.lost).toBe(1);
  });
});

describe("words", () => {
  it("lets a hyphenated word be stated by its parts", () => {
    const source = "Adds Parquet-Export and fixes the CSV-Export time zones.";
    expect(kept("Export to Parquet; CSV export time zones fixed.", source).facts?.lost).toBe(0);
    expect(kept("Export to Parquet.", source).lost_examples).toEqual(["CSV-Export"]);
  });

  it("reads German nouns as keywords, since German capitalises every noun", () => {
    const german =
      "Die Version 5.1 behebt ein Speicherleck im Scheduler und bringt Unterstützung für den Export nach Parquet, der bis 8 GB erlaubt.";
    // Only the numbers are facts: the nouns are context, as English keywords are.
    expect(measure("x", { source: german }).lost_examples).toEqual(["5.1 behebt", "8 GB erlaubt"]);
  });

  it("keeps names as facts in English, even in a list of them", () => {
    const english =
      "Attendees: Dana Kim, Luis Ortega, Mei Chen, Sam Patel and Priya Raman met with the Acme team in Rotterdam.";
    expect(measure("x", { source: english }).lost_examples).toEqual(
      expect.arrayContaining(["Dana", "Ortega", "Priya", "Rotterdam"]),
    );
  });

  it("splits CJK text from the numbers and names in it, and ends its sentences at 。", () => {
    expect(tokenizeLine("最大8 GB（#5120）。/v1/exportは廃止").map((t) => t.text)).toEqual([
      "最大",
      "8 GB",
      "#5120",
      "/v1/export",
      "は廃止",
    ]);
    const source = "2026年3月12日、バージョン5.1をリリースしました。PostgreSQL 16に対応しました。";
    expect(kept("5.1（2026年3月12日）：PostgreSQL 16。", source).facts?.lost).toBe(0);
    const first = "2026年3月12日、バージョン5.1をリリースしました。";
    expect(kept(`${first} ${first}`, source).semantic_density_score).toBeLessThanOrEqual(0.5);
  });
});

describe("padding", () => {
  it("catches a sentence repeated on one line even without a full stop", () => {
    for (const source of [
      "order A-1189 shipped to Lyon via DHL, tracking JD014600003NL, weight 4.2 kg, delivered 2026-05-03",
      "Der Server startet um 09:00 Uhr und verarbeitet 1200 Anfragen pro Minute",
    ]) {
      expect(kept(source, source).semantic_density_score).toBe(1);
      expect(kept(`${source} ${source}`, source).semantic_density_score).toBeLessThanOrEqual(0.5);
    }
  });
});

describe("base64", () => {
  const json = JSON.stringify({ order_id: "B-2207", lines: [{ sku: "KB-01", qty: 3 }], total: 837.2 });
  const b64 = (s: string) => Buffer.from(s).toString("base64");

  it("decodes a base64 source, and base64 of base64 as well", () => {
    expect(kept(b64(json), b64(json), "base64").semantic_density_score).toBe(1);
    expect(kept(json, b64(json), "any").facts?.lost).toBe(0);
    expect(kept(b64(b64(json)), b64(json), "base64").semantic_density_score).toBe(1);
  });

  it("reads what merely looks like base64 as text in format any: a digest, a word, a key", () => {
    for (const word of ["0123456789ABCDEF0123456789ABCDEF", "Internationalization", "AKIAIOSFODNN7EXAMPLE"]) {
      expect(measure(word, { format: "any" }), word).toMatchObject({ format: "text", parseable: true });
    }
  });

  it("still refuses base64 of bytes that are not text, long or short", () => {
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 0x80 + ((i * 37) % 128)));
    // 64 characters or more, padding, + or /, or capitals, small letters and digits mixed.
    for (const encoded of [
      bytes(48).toString("base64"),
      bytes(32).toString("base64"),
      "gKWqz/T5Hl6DpNo=",
      "gKWqzT5Hl6DpNoQx",
    ]) {
      expect(measure(encoded, { format: "any" }), encoded).toMatchObject({ format: "base64", parseable: false });
    }
  });
});

describe("required fields", () => {
  it("reads a leading [] as a document that is an array", () => {
    const events = JSON.stringify([{ id: 1 }, { id: 2 }]);
    expect(measure(events, { format: "json", requiredFields: ["[].id"] }).schema_valid).toBe(true);
    expect(measure(JSON.stringify([{ id: 1 }, {}]), { format: "json", requiredFields: ["[].id"] }).schema_valid).toBe(
      false,
    );
  });
});

describe("JSON nested deep", () => {
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const arrays = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

  it("is read as JSON up to 64 levels, as the rest of Floorline reads it, and not beyond", () => {
    for (const nest of [objects, arrays]) {
      expect(measure(nest(64), { format: "json" }).parseable).toBe(true);
      expect(measure(nest(65), { format: "json" }).parseable).toBe(false);
      expect(measure(nest(65), { source: nest(65) }).semantic_density_score).toBeGreaterThan(0);
    }
  });

  it("a 600 KB nest of 120,000 levels, as content and as its source, is measured and let go", () => {
    const nest = objects(120_000);
    const m = measure(nest, { source: nest, format: "json" });
    expect(m.parseable).toBe(false);
  });
});

describe("floorline-facts/4", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  /** As base64(1) writes it: 76 characters a line, each line ended. */
  const wrap = (s: string, eol = "\n") => `${(b64(s).match(/.{1,76}/g) ?? []).join(eol)}${eol}`;
  const release = [
    "Release 3.9.0 (2026-05-02): adds streaming export to Parquet (up to 4 GB files), a --dry-run flag",
    "for migrate, and Postgres 17 support. Fixes a memory leak in the scheduler (#4412).",
  ].join("\n");

  it("reads base64 wrapped as base64(1) and MIME write it, LF or CRLF, as its text", () => {
    for (const format of ["base64", "any"] as const) {
      expect(kept(wrap(release), release, format)).toMatchObject({ format: "base64", semantic_density_score: 1 });
      expect(kept(wrap(release, "\r\n"), wrap(release), format).semantic_density_score).toBe(1);
    }
    // Lines of different widths are not how base64 is wrapped: not base64.
    const ragged = wrap(release).replace(/^(.{40})/, "$1\n");
    expect(measure(ragged, { format: "base64" })).toMatchObject({ parseable: false });
    // Format text reads the lines as written.
    expect(kept(wrap(release), release, "text").semantic_density_score).toBeLessThan(0.2);
  });

  it("lets JSON change its shape and keep its values, unless fields are required of it", () => {
    const rows = [
      { name: "floorline_test", commits: 489, rollbacks: 3 },
      { name: "postgres", commits: 74, rollbacks: 0 },
    ];
    const source = JSON.stringify(rows);
    const columns = JSON.stringify({ columns: ["name", "commits", "rollbacks"], rows: rows.map(Object.values) });
    const map = JSON.stringify(
      Object.fromEntries(rows.map((r) => [r.name, { commits: r.commits, rollbacks: r.rollbacks }])),
    );
    for (const content of [columns, map])
      expect(kept(content, source, "json").semantic_density_score, content).toBeGreaterThanOrEqual(0.9);
    // Held to a schema, the columns' values are at paths the source does not have.
    const held = measure(columns, { source, format: "json", requiredFields: ["[].name"] });
    expect(held.semantic_density_score).toBeLessThan(0.5);
    // A value stated more often than the source states it is a repeat, whatever its path.
    const padded = JSON.stringify({ ...JSON.parse(columns), again: Array(40).fill(489) });
    expect(kept(padded, source, "json").components).toMatchObject({ efficiency: expect.any(Number) });
    expect((kept(padded, source, "json").components as { efficiency: number }).efficiency).toBeLessThan(0.5);
  });

  it("counts what a diff changed, not its notation, hunk headers or unchanged lines", () => {
    const diff = [
      "commit bc92f46a44e3c08e1d55164325904430fef0a3bb",
      "    integration: 180 s per test",
      "",
      "diff --git a/vitest.config.ts b/vitest.config.ts",
      "index 390583b..39d811e 100644",
      "--- a/vitest.config.ts",
      "+++ b/vitest.config.ts",
      "@@ -14,8 +14,10 @@ const integration = {",
      '   globalSetup: ["sdk/typescript/test/build.ts"],',
      "-  testTimeout: 60_000,",
      "+  testTimeout: 180_000,",
      "   isolate: false,",
      "--- a/docs/testing.md",
      "+++ b/docs/testing.md",
      "@@ -1,2 +1,2 @@",
      "-Integration takes 60 s a test.",
      "+Integration takes 180 s a test.",
    ].join("\n");
    const summary =
      "commit bc92f46a44e3c08e1d55164325904430fef0a3bb (integration: 180 s per test): vitest.config.ts testTimeout 60_000 -> 180_000; docs/testing.md: integration takes 180 s a test, not 60 s.";
    expect(kept(summary, diff).semantic_density_score).toBeGreaterThanOrEqual(0.9);
    // The headers and context alone state nothing the change made.
    const notation = diff
      .split("\n")
      .slice(3)
      .filter((line) => /^(diff|index|---|\+\+\+|@@| )/.test(line))
      .join("\n");
    const headers = kept(notation, diff);
    expect(headers.lost_examples).toEqual(expect.arrayContaining(["60_000", "180_000", "60", "180"]));
    // The one fact it keeps is "-Integration": a change line's sign stays on its first word,
    // which then reads as a flag (a known limit, docs/measurement.md) that "integration" states.
    // testTimeout, a capital after a small letter, is a name: a fact of its own.
    expect(headers.facts).toMatchObject({ in_source: 7, retained: 1 });
  });

  it("reads at most 64 runs of one token no rule recognises", () => {
    const joined = Array.from({ length: 100 }, (_, i) => i + 1).join(":");
    expect(kept(joined, "step 10 of the plan").facts).toMatchObject({ retained: 1, lost: 0 });
    expect(kept(joined, "step 70 of the plan").facts).toMatchObject({ retained: 0, lost: 1 });
    expect(tokenizeLine("1:".repeat(100_000)).length).toBeLessThanOrEqual(64);
  });

  it("reads a position in code once, however many numbers follow it", () => {
    // A file's position is stripped once; what looks like a Node module with numbers for a name
    // (`node:1:1:…`) is none, and no token is read again for each pair of its numbers.
    for (const token of [`node:${"1:".repeat(300_000)}1`, `a.c${":1".repeat(300_000)}`]) {
      expect(measure(token, { source: token, format: "text" }).semantic_density_score).toBe(1);
    }
    expect(tokenizeLine("node:1:2 node:crypto:1:2").map((t) => t.need)).toEqual([
      ["c:node:1:2"],
      ["w:node"],
      ["w:crypt"],
    ]);
  });

  it("reads numbers written as words as the numbers, in four languages", () => {
    const source = "exit 0 success; exit 1 denied; exit 2 syntax; exit 15 missing; retries 21; Stufe 12; niveau 15";
    const m = kept(
      "exits zero on success, one if denied, two on syntax, fifteen when missing; twenty-one retries; zwölf; quinze",
      source,
    );
    expect(m.lost_examples.filter((f) => /\d/.test(f))).toEqual([]);
    // "one" is a pronoun too: a stop word, it is no fact of a source.
    expect(kept("1", "one of the reasons").facts?.in_source).toBe(0);
  });

  const pgLog = [
    "2026-12-03 22:14:59.177 UTC [5425] LOG:  checkpoint starting: immediate force wait",
    "2026-12-03 22:14:59.180 UTC [5425] LOG:  checkpoint complete: wrote 11 buffers (0.1%)",
    "2026-12-03 22:15:05.788 UTC [31060] app@orders ERROR:  deadlock detected",
    "2026-12-03 22:15:05.788 UTC [31060] app@orders DETAIL:  Process 31060 waits for ShareLock on transaction 7741.",
    "\tProcess 31059 waits for ShareLock on transaction 7740.",
    "2026-12-03 22:15:05.788 UTC [31060] app@orders STATEMENT:  update stock set qty = 0 where sku = 'SKU-17'",
    "2026-12-03 22:15:08.663 UTC [5425] LOG:  checkpoint starting: immediate force wait",
    "2026-12-03 22:15:08.667 UTC [5425] LOG:  checkpoint complete: wrote 8 buffers (0.0%)",
  ];

  it("weighs error entries first: a log with its deadlock removed is void, the deadlock alone is not", () => {
    const source = pgLog.join("\n");
    const quiet = pgLog.filter((_, i) => i < 2 || i > 5).join("\n");
    const m = kept(quiet, source);
    expect(m.components).toMatchObject({ salience: expect.any(Number) });
    expect(m.semantic_density_score).toBeLessThanOrEqual(0.2);
    const errorsOnly = kept(pgLog.slice(2, 6).join("\n"), source);
    expect(errorsOnly.semantic_density_score).toBeGreaterThanOrEqual(0.5);
  });

  it("reads the level of a line after PostgreSQL's user@database, in capitals, and first level only", () => {
    const source = pgLog.join("\n");
    // The ERROR line after `app@orders` is an error line: a fact of its own, listed whole.
    expect(kept("checkpoints", source).lost_examples[0]).toContain("deadlock detected");
    // A lower-case level word late in the line is prose, and a level read first decides.
    const info = [
      "2026-12-03T10:00:00Z INFO api request done, error budget fine id=1",
      "2026-12-03T10:00:01Z INFO api up id=2",
    ];
    expect(kept("api up", info.join("\n")).components).not.toHaveProperty("salience");
  });

  it("does not open an error entry on a flag that ends in -error", () => {
    const man =
      "OPTIONS\n       --exit-on-error\n              exit as soon as a script exits with a non-zero code.\n       --list\n              print names";
    expect(kept("--list prints names", man).components).not.toHaveProperty("salience");
  });

  it("counts a text that keeps the source's words in no order as stating none of it", () => {
    const source =
      'The POSIX compatibility level is now set to POSIX 1003.1-2001, which affects the syntax for several commands. For transition purposes, "sort +number" and "tail +number" will be supported for the etch release. To revert to the older syntax, set the environment variable _POSIX2_VERSION to "199209".';
    const words = source.split(" ");
    // A fixed shuffle (each word moved by a stride prime to the count), not a random one.
    const shuffled = words.map((_, i) => words[(i * 17) % words.length]).join(" ");
    const m = kept(shuffled, source);
    expect(m.facts?.lost).toBe(0);
    expect(m.components).toHaveProperty("order");
    expect(m.semantic_density_score).toBeLessThanOrEqual(0.2);
    // Reworded, in its own order, it keeps its coverage: the test judges order, not wording.
    const reworded = kept(
      'POSIX compatibility is now POSIX 1003.1-2001, affecting the syntax of several commands; for the etch release "sort +number" and "tail +number" stay supported for transition purposes, and the environment variable _POSIX2_VERSION set to "199209" reverts to the older syntax.',
      source,
    );
    expect(reworded.components).not.toHaveProperty("order");
  });

  it("does not count the parts of one word as kept together when the words are shuffled", () => {
    // Flags and paths split into several tokens ("--to=iec-i", "GNU/Linux"): a shuffle of the
    // words keeps their parts next to each other, which says nothing of the text's order.
    const source =
      "numfmt --to=iec-i --suffix=B --round=nearest converts 1048576 to 1.0MiB on GNU/Linux; use --from=auto to read 1K as 1000 and --padding=8 to align the column at /usr/bin/numfmt. With --field=2-5 it converts the second to fifth fields of each line, --delimiter=: splits them at colons, and --invalid=warn reports what it cannot convert on /dev/stderr without stopping, while --invalid=fail stops at the first such value with exit status 2.";
    const words = source.split(" ");
    const shuffled = words.map((_, i) => words[(i * 11) % words.length]).join(" ");
    expect(words.length % 11).not.toBe(0);
    expect(kept(shuffled, source).semantic_density_score).toBeLessThanOrEqual(0.2);
  });
});

describe("strings made to share a hash", () => {
  it("do not share it in the measurement's tables: its basis and multiplier are drawn per process", () => {
    // Tokens that all share plain FNV-1a's hash (test/support/fnv-collisions.ts).
    const words = collidingTokens(10);
    expect(new Set(words.map((w) => fnv1a(w))).size).toBe(1);
    const interner = new Interner();
    for (const w of words) interner.id(w);
    const hashes = new Set(words.map((_, id) => interner.hashOf(id)));
    expect(hashes.size).toBeGreaterThan(1000);
  });
});

describe("an interner's fresh ids (keys known by their parts, json.ts jsonKey)", () => {
  it("are given to no string, through growth and rollback, and leave the other ids exact", () => {
    const interner = new Interner();
    interner.id("");
    const fresh = [interner.fresh(), interner.fresh()];
    // Enough strings after them that the table is laid out again several times.
    const words = Array.from({ length: 5000 }, (_, i) => `j:$.items[${i}].name`);
    const ids = words.map((w) => interner.id(w));
    expect(interner.id("")).toBe(0);
    expect(fresh).toEqual([1, 2]);
    expect(words.map((w) => interner.id(w))).toEqual(ids);
    expect(new Set([...fresh, ...ids]).size).toBe(fresh.length + ids.length);

    // Taken out with the strings after a size, then given again in the same order.
    const size = interner.size;
    const later = interner.fresh();
    const added = words.map((w) => interner.id(`${w}=x`));
    interner.rollback(size);
    expect(interner.size).toBe(size);
    expect(interner.id(`${words[0]}=x`)).toBe(later);
    expect(interner.fresh()).toBe(later + 1);
    expect(interner.id(`${words[1]}=x`)).toBe(later + 2);
    expect(words.map((w) => interner.id(w))).toEqual(ids);
    expect(added.length).toBe(words.length);
  });
});
