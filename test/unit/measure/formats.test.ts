// The method per format on hand-made cases: each test names a rule of docs/measurement.md
// and fails when that rule breaks. Long because it holds a case for every rule, one place to
// read what each rule does.
import { describe, expect, it } from "vitest";
import { measure, measureDetailed } from "@/lib/measure/index";
import { tokenizeLine } from "@/lib/measure/scan";
import { classify } from "@/lib/measure/tokens";

const kept = (content: string, source: string, format: "text" | "json" | "any" = "any") =>
  measure(content, { source, format });

describe("text facts", () => {
  it("reads numbers with their units in any spelling, and not without them", () => {
    const source = "The upload limit is 4 GB and requests time out after 5000 ms.";
    expect(kept("Limit 4GB; timeout 5000ms.", source).facts).toMatchObject({ in_source: 2, retained: 2 });
    expect(kept("Limit 4 gigabytes; timeout 5000 milliseconds.", source).facts?.lost).toBe(0);
    const bare = kept("Limit 4; timeout 5000.", source);
    expect(bare.facts?.retained).toBe(0);
    expect(bare.lost_examples).toEqual(["4 GB", "5000 ms"]);
  });

  it("reads thousands separators and a number's trailing zeros as the same number", () => {
    const source = "We queued 10,000 jobs costing 4.50 each.";
    expect(kept("10000 jobs at 4.5", source).facts?.lost).toBe(0);
    expect(kept("1000 jobs at 4.05", source).facts?.retained).toBe(0);
  });

  it("reads dates in several notations as one date", () => {
    const source = "Released on 2026-05-02.";
    for (const written of ["May 2, 2026", "2 May 2026", "May 2nd 2026", "05/02/2026", "02.05.2026", "2026/05/02"]) {
      expect(kept(`Shipped ${written}.`, source).facts, written).toMatchObject({ retained: 1, lost: 0 });
    }
    expect(kept("Shipped 2026-05-03.", source).facts?.lost).toBe(1);
    expect(kept("Shipped 13/05/2026.", "Released on 13 May 2026.").facts?.lost).toBe(0);
  });

  it("reads times with and without seconds, and 12-hour times", () => {
    const source = "The job ran at 14:00:00 and again at 09:30.";
    expect(kept("ran 2pm, then 9:30 am", source).facts?.lost).toBe(0);
    expect(kept("ran 14:00 and 09:31", source).facts).toMatchObject({ retained: 1, lost: 1 });
  });

  it("reads hashes, UUIDs, URLs, paths, versions, flags and identifiers", () => {
    const source =
      "Commit 3f2a9c1d8e7b pushed by ops@example.com to https://git.example.com/repo/ (id 123e4567-e89b-12d3-a456-426614174000), touching src/app/page.tsx for v2.4.1 with --force on host-42 via get_orders.";
    const m = measureDetailed("nothing here", { source });
    expect(m.facts?.in_source).toBe(9);
    expect(m.lost_examples).toEqual([
      "3f2a9c1d8e7b",
      "ops@example.com",
      "https://git.example.com/repo/",
      "123e4567-e89b-12d3-a456-426614174000",
      "src/app/page.tsx",
      "v2.4.1",
      "--force",
      "host-42",
      "get_orders",
    ]);
    const copy =
      "3F2A9C1D8E7B ops@example.com https://git.example.com/repo src/app/page.tsx 2.4.1 force HOST-42 get_orders";
    expect(kept(copy, source).facts).toMatchObject({ retained: 8, lost: 1 });
    expect(kept(copy, source).lost_examples).toEqual(["123e4567-e89b-12d3-a456-426614174000"]);
  });

  it("takes capitals inside a sentence and acronyms as names, but not a sentence's first word", () => {
    const kinds = tokenizeLine("Fixes landed in Parquet and CSV. Export works.").map((t) => `${t.text}:${t.kind}`);
    expect(kinds).toEqual([
      "Fixes:keyword",
      "landed:keyword",
      "in:stop",
      "Parquet:name",
      "and:stop",
      "CSV:name",
      "Export:keyword",
      "works:keyword",
    ]);
  });

  it("classifies key=value pairs by their value and keeps the key for examples", () => {
    const [t] = classify("ms=53", false);
    expect(t?.need).toEqual(["n:53|ms"]);
    expect(kept("took 53 ms", "request ms=53 done").facts?.lost).toBe(0);
    expect(measure("x", { source: "request id=r1000 done" }).lost_examples).toEqual(["id=r1000"]);
  });

  it("says nothing specific for filler, and is specific without a source when the content is", () => {
    expect(measure("The document discusses various topics.").semantic_density_score).toBe(0);
    expect(measure("Postgres 17, 4 GB, #4412, /v2/export").semantic_density_score).toBeGreaterThanOrEqual(0.9);
  });

  it("penalises repeated sentences and filler beside the facts", () => {
    const source = "Node.js 20.9 is required. Postgres 17 is supported.";
    const once = kept("Node.js 20.9 is required. Postgres 17 is supported.", source).semantic_density_score;
    const twice = kept("Node.js 20.9 is required. Postgres 17 is supported. Node.js 20.9 is required.", source);
    const padded = kept("Node.js 20.9 is required. Postgres 17 is supported. It is a very good thing overall.", source);
    expect(once).toBe(1);
    expect(twice.facts?.lost).toBe(0);
    expect(twice.semantic_density_score).toBeLessThan(0.7);
    expect(padded.semantic_density_score).toBeLessThan(0.8);
  });

  it("reads a word with a capital after a small letter as a name, wherever it stands", () => {
    for (const word of ["execFileSync", "cliScript", "macOS"])
      expect(
        classify(word, true, true).map((t) => t.kind),
        word,
      ).toEqual(["name"]);
    // A name needs itself, not a five-letter stem: execFile does not state execFileSync.
    const source = "The CLI now runs through promisify(execFile) instead of execFileSync.";
    const answer = kept("The CLI now runs through execFile.", source, "text");
    expect(answer.lost_examples).toEqual(["execFileSync"]);
    expect(answer.facts).toMatchObject({ in_source: 3, retained: 2 });
  });
});

describe("notation is not a fact (floorline-facts/4)", () => {
  it("reads Markdown's _emphasis_ as the word it marks, in any script", () => {
    const source = "Biome formats _JavaScript_, __TypeScript__ and _SCSS_ 等，与 _Prettier_ 的兼容性达到了 97%。";
    const answer = kept("Biome 支持 JavaScript、TypeScript 和 SCSS，与 Prettier 兼容性 97%。", source, "text");
    expect(answer.facts).toMatchObject({ lost: 0 });
    expect(tokenizeLine("_snake_case_ __init__").map((t) => t.text)).toEqual(["snake_case", "init"]);
  });

  it("reads a hash abbreviated as git abbreviates it as the full hash", () => {
    const source =
      "commit 018a0225a7adf5d0d4cb9167d2c49c5018a3ab53 reverts 4f2c9e1 (image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08)";
    expect(kept("018a022 reverts 4f2c9e1d3a; image 9f86d08…", source, "text").facts).toMatchObject({
      in_source: 3,
      lost: 0,
    });
    // Another hash with the same first six characters is another hash.
    const other = kept("018a023 reverts 4f2c9e0; image 9f86d09", source, "text");
    expect(other.facts).toMatchObject({ retained: 0, lost: 3 });
  });

  it("weighs a Markdown link's address as context: its text says what it is", () => {
    const source = [
      "See the [benchmark](https://example.com/bench) and ![logo](https://example.com/logo.png) at https://example.com/raw, run 42.",
      "[ci]: https://ci.example.com/x",
    ].join("\n");
    const withoutLinks = kept("See the benchmark and logo at https://example.com/raw, run 42.", source, "text");
    const withoutRaw = kept(
      "See the benchmark https://example.com/bench and logo https://example.com/logo.png https://ci.example.com/x, run 42.",
      source,
      "text",
    );
    expect(withoutLinks.facts).toMatchObject({ lost: 3 });
    expect(withoutRaw.facts).toMatchObject({ lost: 1 });
    // Three link addresses dropped cost less than one address written out.
    expect(withoutLinks.semantic_density_score).toBeGreaterThan(withoutRaw.semantic_density_score + 0.1);
    // A path after a bracketed word and a colon is a log line's, not a link definition's.
    const logLine = kept("rotated at 10:00 by cron-7", "[note]: /var/log/app.log rotated at 10:00 by cron-7", "text");
    const linked = kept("rotated at 10:00 by cron-7", "[note](/var/log/app.log) rotated at 10:00 by cron-7", "text");
    expect(logLine.lost_examples).toEqual(["/var/log/app.log"]);
    expect(linked.semantic_density_score).toBeGreaterThan(logLine.semantic_density_score + 0.1);
  });

  it("weighs a key quoted as JSON quotes it as context, in a text as in JSON", () => {
    // A structured logger's line is text with JSON in it: its keys name what the values are,
    // as a JSON document's key paths do.
    const source = [
      '{"level":30,"msg":"request completed","res":{"statusCode":200},"responseTime":12}',
      '{"level":30,"msg":"slow query on table orders","durationMs":1840}',
    ].join("\n");
    const summary = measureDetailed("level 30: request completed 200 in 12 ms; slow query on table orders, 1840 ms.", {
      source,
    });
    expect(summary.lost_examples).toEqual(expect.arrayContaining(["statusCode", "responseTime", "durationMs"]));
    expect(summary.semantic_density_score).toBeGreaterThan(0.8);
    // The same word anywhere else is a name, a fact.
    const prose = measureDetailed("request completed, 12 ms", { source: "statusCode 200 and responseTime 12 ms" });
    expect(prose.facts?.lost).toBeGreaterThanOrEqual(2);
    expect(prose.semantic_density_score).toBeLessThan(0.6);
    expect(tokenizeLine('"a": "statusCode", x"y":').length).toBe(4);
  });

  it("reads two numbers joined by .. or - as a range of two numbers, not their digit runs", () => {
    expect(tokenizeLine("cost=304.68..304.87 2.5-3.5 10-20 3.7.9-2").map((t) => [t.text, t.need])).toEqual([
      ["304.68", ["n:304.68"]],
      ["304.87", ["n:304.87"]],
      ["2.5", ["n:2.5"]],
      ["3.5", ["n:3.5"]],
      ["10", ["n:10"]],
      ["20", ["n:20"]],
      ["3.7.9-2", ["v:3.7.9-2"]],
    ]);
    const plan = "Sort  (cost=304.68..304.87 rows=79 width=44) (actual time=7.688..7.690 rows=7 loops=1)";
    expect(
      kept(
        "Sort: estimated cost 304.68-304.87 for 79 rows of width 44, actually 7.688-7.690 ms for 7 rows in 1 loop",
        plan,
        "text",
      ).facts,
    ).toMatchObject({ lost: 0 });
  });

  it("reads a time to the second: a fraction of a second is notation", () => {
    const trace = [
      "10:33:34.825614 git.c:460 trace: built-in: git log",
      "10:33:34.860709 git.c:460 trace: built-in: git diff",
    ].join("\n");
    const answer = kept("At 10:33:34 git log and git diff ran (git.c:460).", trace, "text");
    expect(answer.facts).toMatchObject({ lost: 0 });
    expect(tokenizeLine("10:33:34.825614 10:33:34.5 10:00:00.000").map((t) => t.need)).toEqual([
      ["t:10:33:34"],
      ["t:10:33:34"],
      ["t:10:00"],
    ]);
  });
  it("reads a position in code as its file: the line and column are incidental", () => {
    expect(
      tokenizeLine(
        "git.c:460 ring.c:19:12: src/a.ts:12:5 node:events:524:28 db.example.com:5432 localhost:8080 12:00:01",
      ).map((t) => [t.text, t.need]),
    ).toEqual([
      ["git.c", ["c:git.c"]],
      ["ring.c", ["c:ring.c"]],
      ["src/a.ts", ["p:src/a.ts"]],
      ["node", ["w:node"]],
      ["events", ["w:event"]],
      // A host's port is no position: its name ends in no code file's extension.
      ["db.example.com:5432", ["c:db.example.com:5432"]],
      ["localhost:8080", ["c:localhost:8080"]],
      ["12:00:01", ["t:12:00:01"]],
    ]);
    const trace = [
      "10:33:34 trace: git.c:460 built-in: git log -1",
      "10:33:35 trace: run-command.c:659 exec: git-foo",
      "10:33:36 fatal: cannot run git-foo at exec-cmd.c:266",
    ].join("\n");
    const answer = kept(
      "At 10:33:34 git log -1 ran (git.c); at 10:33:35 git-foo was exec'd (run-command.c) and at 10:33:36 failed: fatal: cannot run git-foo (exec-cmd.c).",
      trace,
      "text",
    );
    expect(answer.lost_examples).toEqual([]);
  });

  it("weighs a setting's key as context, as a JSON document's keys are", () => {
    const conf = [
      "data_directory = '/var/lib/postgresql/15/main'\t\t# use data in another directory",
      "max_connections = 100\t\t\t# (change requires restart)",
      "max_wal_size = 1GB",
      "min_wal_size = 80MB",
    ].join("\n");
    const summary = measureDetailed(
      "Data in /var/lib/postgresql/15/main; 100 connections at most; WAL between 80MB and 1GB.",
      {
        source: conf,
      },
    );
    expect(summary.lost_examples).toEqual(expect.arrayContaining(["data_directory", "max_wal_size"]));
    // Four values kept, four keys (context) lost.
    expect(summary.semantic_density_score).toBeGreaterThan(0.65);
    // The same identifiers in a sentence, or after `==`, are facts.
    const prose = measureDetailed("Data in /var/lib/postgresql/15/main.", {
      source: "Set data_directory to /var/lib/postgresql/15/main\ndata_directory == '/var/lib/postgresql/15/main'",
    });
    expect(prose.lost_examples).toEqual(["data_directory"]);
    expect(prose.semantic_density_score).toBeLessThan(0.7);
  });

  it("reads a position in brackets after its file, as tsc writes it, as the file", () => {
    expect(
      tokenizeLine("orders.ts(8,57): error TS2339 a.c(7) f(1,2) x.md(3,4) b.ts (5) c.ts(1,2,3)").map((t) => t.text),
    ).toEqual([
      "orders.ts",
      "error",
      "TS2339",
      "a.c",
      "f",
      "1",
      "2",
      "x.md",
      "3",
      "4",
      "b.ts",
      "5",
      "c.ts",
      "1",
      "2",
      "3",
    ]);
    const errors = [
      "orders.ts(8,57): error TS2339: Property 'price' does not exist on type 'Order'.",
      "orders.ts(14,29): error TS2367: This comparison appears to be unintentional.",
    ].join("\n");
    const answer = measureDetailed(
      "orders.ts: error TS2339: Property 'price' does not exist on type 'Order'. error TS2367: This comparison appears to be unintentional.",
      { source: errors, format: "text" },
    );
    expect(answer.facts?.lost).toBe(0);
  });
});

describe("logs", () => {
  const source = [
    "2026-11-30T10:00:00Z INFO request id=r1 path=/a status=200",
    "2026-11-30T10:00:01Z INFO request id=r2 path=/a status=200",
    "2026-11-30T10:00:02Z INFO request id=r3 path=/a status=200",
    "2026-11-30T10:00:03Z ERROR db timeout after 5000 ms shard=7",
  ].join("\n");

  it("makes an error line a fact that a summary keeps only by keeping the whole line", () => {
    const m = measureDetailed("3 INFO requests to /a, status=200. ERROR db timeout after 5000 ms", { source });
    expect(m.lost_examples).toContain("shard=7");
    expect(m.lost_examples[0]).toBe("2026-11-30T10:00:03Z ERROR db timeout after 5000 ms shard=7");
  });

  it("weighs the values of repeated records by their share, so routine detail costs little", () => {
    const summary = kept(
      "3 INFO requests to /a, status=200.\n2026-11-30T10:00:03Z ERROR db timeout after 5000 ms shard=7",
      source,
    );
    const noError = kept("3 INFO requests to /a, status=200, ids r1 r2 r3.", source);
    expect(summary.semantic_density_score).toBeGreaterThan(0.8);
    expect(noError.semantic_density_score).toBeLessThan(0.5);
  });

  it("weighs a log's time stamps as one column, whatever each line's words", () => {
    // Four lines of four templates: the stamps are a sequence, one fact together, as a
    // repeated record's ids are.
    const varied = [
      "2026-11-30T10:00:00.120Z INFO worker 3 started on queue exports",
      "2026-11-30T10:00:04.381Z INFO job 4412 picked up by worker 3",
      "2026-11-30T10:00:09.902Z WARN job 4412 retried: upstream 502",
      "2026-11-30T10:00:15.005Z INFO job 4412 done in 14.6 s",
    ].join("\n");
    const withoutTimes = measureDetailed(
      "Worker 3 started on queue exports and picked up job 4412; it was retried (WARN: upstream 502) and done in 14.6 s.",
      { source: varied },
    );
    const withoutDuration = measureDetailed(
      "2026-11-30T10:00:00.120Z worker 3 started on queue exports; 2026-11-30T10:00:04.381Z it picked up job 4412; 2026-11-30T10:00:09.902Z WARN job 4412 retried: upstream 502; 2026-11-30T10:00:15.005Z done.",
      { source: varied },
    );
    expect(withoutTimes.lost_examples.slice().sort()).toEqual([
      "2026-11-30T10:00:00.120Z",
      "2026-11-30T10:00:04.381Z",
      "2026-11-30T10:00:09.902Z",
      "2026-11-30T10:00:15.005Z",
    ]);
    expect(withoutDuration.lost_examples).toEqual(["14.6"]);
    // Dropping the four stamps costs what dropping one value of the job does.
    expect(withoutTimes.semantic_density_score).toBeCloseTo(withoutDuration.semantic_density_score, 1);
    expect(withoutTimes.semantic_density_score).toBeGreaterThan(0.8);
  });

  it("reads a full date as stating its day, its month and its year", () => {
    // git writes a commit's date with the year apart, after the time.
    const source =
      "commit 018a0225a7adf5d0d4cb9167d2c49c5018a3ab53\nDate:   Sat Dec 5 09:28:11 2026 +0000\n\n    pool: a worker over budget fails alone";
    const iso = measureDetailed("018a022 (2026-12-05 09:28:11, Sat): pool: a worker over budget fails alone.", {
      source,
    });
    expect(iso.facts?.lost).toBe(0);
    expect(
      measureDetailed("018a022 (2025-12-05 09:28:11, Sat): pool: a worker over budget fails alone.", { source })
        .lost_examples,
    ).toEqual(["2026"]);
  });

  it("reads a web server's dates and a UTC offset written apart as a log's time", () => {
    // The Common Log Format's stamp is a datetime, its zone notation of the time, as an
    // attached zone is: neither a path nor a number.
    expect(classify("10/Oct/2000:13:55:36", false)[0]).toMatchObject({
      kind: "datetime",
      need: ["d:2000-10-10", "t:13:55:36"],
    });
    expect(classify("05/Dec/2026", false)[0]).toMatchObject({ kind: "date", need: ["d:2026-12-05"] });
    for (const zone of ["+0000", "-0700", "+05:30", "-10:00"]) expect(classify(zone, false)[0]?.kind).toBe("stop");
    // Four digits with no leading zero may be a number; a month that is none makes no date.
    for (const n of ["+1000", "-0710"]) expect(classify(n, false)[0]?.kind).toBe("number");
    expect(classify("1/Foo/2020", false)[0]?.kind).toBe("path");
    const access = [
      '203.0.113.7 - - [10/Oct/2026:13:55:36 -0700] "GET /api/orders HTTP/1.1" 200 2326',
      '203.0.113.7 - - [10/Oct/2026:13:55:41 -0700] "GET /api/orders/4412 HTTP/1.1" 404 153',
      '198.51.100.2 - - [10/Oct/2026:13:56:02 -0700] "POST /api/checkout HTTP/1.1" 502 87',
    ].join("\n");
    const summary = measureDetailed(
      "HTTP/1.1 on 2026-10-10: 13:55:36 203.0.113.7 GET /api/orders 200 (2326 bytes); 13:55:41 GET /api/orders/4412 404 (153 bytes); 13:56:02 198.51.100.2 POST /api/checkout 502 (87 bytes).",
      { source: access },
    );
    expect(summary.facts?.lost).toBe(0);
  });

  it("reads a structured logger's Unix times as the moments they are", () => {
    // pino writes milliseconds, zap seconds with a fraction: each is its UTC datetime.
    expect(classify("1733390407123", false)[0]).toMatchObject({
      kind: "datetime",
      need: ["d:2024-12-05", "t:09:20:07"],
    });
    expect(classify("1733390407.123456", false)[0]).toMatchObject({
      kind: "datetime",
      need: ["d:2024-12-05", "t:09:20:07"],
    });
    // Ten digits alone (a phone number, an id), and numbers outside 2001-2099, stay numbers.
    for (const n of ["1733390407", "999999999999", "4102444800000"]) expect(classify(n, false)[0]?.kind).toBe("number");
    const pino = [
      '{"level":30,"time":1733390407123,"pid":1667,"msg":"server listening on port 3000"}',
      '{"level":30,"time":1733390412456,"pid":1667,"msg":"request GET /api/orders completed 200 in 12 ms"}',
      '{"level":40,"time":1733390415789,"pid":1667,"msg":"slow query on table orders: 1840 ms"}',
      '{"level":30,"time":1733390420333,"pid":1667,"msg":"request POST /api/checkout completed 502 in 30012 ms"}',
    ].join("\n");
    // The lines are a log (a time among their first four tokens) and their stamps one column:
    // a summary that writes the moments in ISO states them, one that drops them loses little.
    const iso = measureDetailed(
      "levels 30 and 40, pid 1667. 2024-12-05T09:20:07Z server listening on port 3000; 09:20:12 GET /api/orders completed 200 in 12 ms; 09:20:15 slow query on table orders: 1840 ms; 09:20:20 POST /api/checkout completed 502 in 30012 ms.",
      { source: pino },
    );
    expect(iso.facts?.lost).toBe(0);
    const noTimes = measureDetailed(
      "levels 30 and 40, pid 1667: server listening on port 3000; GET /api/orders completed 200 in 12 ms; slow query on table orders: 1840 ms; POST /api/checkout completed 502 in 30012 ms.",
      { source: pino },
    );
    expect(noTimes.lost_examples).toHaveLength(4);
    expect(noTimes.semantic_density_score).toBeGreaterThan(0.8);
  });
});

describe("JSON", () => {
  const source = JSON.stringify({
    order: { id: "A-1", customer: { name: "Acme", tier: 2 } },
    lines: [
      { sku: "S-1", qty: 1 },
      { sku: "S-2", qty: 1 },
    ],
  });

  it("takes each leaf with its key path, whatever the layout or key order", () => {
    const pretty = JSON.stringify(
      {
        lines: [
          { qty: 1, sku: "S-1" },
          { qty: 1, sku: "S-2" },
        ],
        order: { customer: { tier: 2, name: "Acme" }, id: "A-1" },
      },
      null,
      2,
    );
    expect(measure(pretty, { source, format: "json" })).toMatchObject({
      parseable: true,
      semantic_density_score: 1,
      facts: { lost: 0 },
    });
  });

  it("loses a nested leaf whose value changed, and names it by its path", () => {
    const changed = source.replace('"tier":2', '"tier":3');
    expect(measure(changed, { source, format: "json" }).lost_examples).toEqual(["order.customer.tier=2"]);
  });

  it("checks required fields through arrays, with or without []", () => {
    for (const field of ["lines[].sku", "lines.sku", "order.customer.name"]) {
      expect(measure(source, { format: "json", requiredFields: [field] }).schema_valid, field).toBe(true);
    }
    expect(measure(source, { format: "json", requiredFields: ["lines[].price"] }).schema_valid).toBe(false);
    expect(measure(source, { format: "json" }).schema_valid).toBeNull();
    expect(measure("not json", { format: "text", requiredFields: ["a"] }).schema_valid).toBe(false);
  });

  it("answers broken JSON as unparseable with nothing retained, never an error", () => {
    const m = measure('{"order": {"id": "A-1"', { source, format: "json" });
    expect(m).toMatchObject({ format: "json", parseable: false, semantic_density_score: 0, facts: { retained: 0 } });
  });

  it("refuses what JSON.parse would accept loosely nowhere, and nesting past its bound without a crash", () => {
    for (const bad of ["NaN", "[1,]", "{'a':1}", "01", '"\t"', "[1] x"]) {
      expect(measure(bad, { format: "json" }).parseable, bad).toBe(false);
    }
    // 64 levels, as everywhere in Floorline (robustness.test.ts holds the bound itself).
    expect(measure(`${"[".repeat(64)}${"]".repeat(64)}`, { format: "json" }).parseable).toBe(true);
    expect(measure(`${"[".repeat(100000)}${"]".repeat(100000)}`, { format: "json" }).parseable).toBe(false);
  });
});

describe("base64", () => {
  it("decodes strictly", () => {
    expect(measure("aGVsbG8gd29ybGQ=", { format: "base64" })).toMatchObject({ format: "base64", parseable: true });
    for (const bad of ["aGVsbG8gd29ybGQ", "aGVsbG8g d29ybGQ=", "aGVs=G8g", "aGVsbG8_d29ybGQ="]) {
      expect(measure(bad, { format: "base64" }).parseable, bad).toBe(false);
    }
  });

  it("measures what JSON decodes to as JSON", () => {
    const json = '{"order_id":"A-1189","status":"paid"}';
    const m = measure(Buffer.from(json).toString("base64"), {
      source: json,
      format: "base64",
      requiredFields: ["order_id"],
    });
    expect(m).toMatchObject({ format: "base64", parseable: true, schema_valid: true, semantic_density_score: 1 });
  });

  it("refuses overlong UTF-8 and encoded surrogates", () => {
    for (const bytes of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ]) {
      expect(measure(Buffer.from(bytes).toString("base64"), { format: "base64" }).parseable, String(bytes)).toBe(false);
    }
    expect(measure(Buffer.from("h\u00e9llo \u{1d11e}").toString("base64"), { format: "base64" }).parseable).toBe(true);
  });
});

describe("CCR markers", () => {
  const source = "Deploy 42 failed on node ip-10-0-3-17 with exit code 137 at 2026-11-30T10:00:07Z.";
  const original = source;
  const hash = "a1b2c3d4e5f6a7b8";
  const compressed = `Deploy 42 failed. [5 items compressed to 1. Retrieve more: hash=${hash}]`;

  it("makes a fact the cached original states recoverable, naming the original", () => {
    const m = measureDetailed(compressed, { source, originals: new Map([[hash, original]]) });
    expect(m.facts).toEqual({ in_source: 4, retained: 1, recoverable: 3, lost: 0 });
    expect(m.recoverable_examples.map((r) => r.hash)).toEqual([hash, hash, hash]);
  });

  it("counts the facts lost when the original is not cached, and accepts a lookup function", () => {
    expect(measure(compressed, { source }).facts).toMatchObject({ recoverable: 0, lost: 3 });
    const viaFunction = measure(compressed.replace(`hash=${hash}`, `<<ccr:${hash}>>`), {
      source,
      originals: (h) => (h === hash ? original : undefined),
    });
    expect(viaFunction.facts).toMatchObject({ recoverable: 3, lost: 0 });
  });

  it("gives a recoverable fact half the credit of a retained one", () => {
    const withOriginal = measure(compressed, { source, originals: new Map([[hash, original]]) }).semantic_density_score;
    const without = measure(compressed, { source }).semantic_density_score;
    expect(withOriginal).toBeGreaterThan(without);
    expect(withOriginal).toBeLessThan(kept(source, source).semantic_density_score);
  });
});

describe("words: phrases and languages (floorline-facts/4)", () => {
  const source = [
    "The backup job copies the database to the archive every night at 02:00.",
    "When the archive is full, the job removes the oldest copy before it starts.",
    "A failed copy is retried three times, and the operator gets a mail after the last one.",
    "The retention of the archive is 30 days; older copies are deleted by the cleanup task.",
  ].join("\n");

  it("counts the source's words only where the content writes them in phrases", () => {
    const prose = kept(
      "Every night at 02:00 the backup job copies the database to the archive, and removes the oldest copy when it is full.",
      source,
      "text",
    );
    const notes = kept(
      "backup job: nightly at 02:00, database -> archive; 3 retries; retention 30 days",
      source,
      "text",
    );
    const bag = kept(
      "backup job copies database archive night removes oldest copy starts failed retried operator mail retention days older deleted cleanup task",
      source,
      "text",
    );
    const list = kept(
      "backup, job, copies, database, archive, night, removes, oldest, copy, failed, retried, operator, mail, retention, cleanup",
      source,
      "text",
    );
    // A bag or a list of the source's words keeps them all and states nothing with them.
    expect(bag.semantic_density_score).toBeLessThan(0.1);
    expect(list.semantic_density_score).toBeLessThan(0.1);
    // Prose and terse notes put their words next to function words and values.
    expect(prose.semantic_density_score).toBeGreaterThan(bag.semantic_density_score + 0.2);
    expect(notes.semantic_density_score).toBeGreaterThan(bag.semantic_density_score + 0.2);
  });

  it("judges a translation by the facts a language does not translate, and not as filler", () => {
    const english = [
      "The scheduler starts each queued backup when its window opens at 02:00.",
      "If the target disk is nearly full, the scheduler postpones the backup and warns the operator.",
      "A backup that fails is retried later, and after the last attempt the scheduler marks the job as broken.",
      "Old backups are removed by the cleanup task cleanup.sh once a newer one has been verified.",
      "Logs of every run are written to /var/log/backup.log and kept for a month.",
    ].join("\n");
    const german = [
      "Der Planer startet jede wartende Sicherung, wenn ihr Zeitfenster um 02:00 öffnet.",
      "Wenn die Zielplatte fast voll ist, verschiebt der Planer die Sicherung und warnt den Betreiber.",
      "Eine fehlgeschlagene Sicherung wird später wiederholt, und nach dem letzten Versuch markiert der Planer den Auftrag als defekt.",
      "Alte Sicherungen werden von der Bereinigung cleanup.sh entfernt, sobald eine neuere geprüft wurde.",
      "Die Protokolle jedes Laufs werden nach /var/log/backup.log geschrieben und einen Monat lang aufbewahrt.",
    ].join("\n");
    // Every fact kept, every word said in German: nothing of it is lost, and no sentence is filler.
    const translated = kept(german, english, "text");
    expect(translated.semantic_density_score).toBeGreaterThanOrEqual(0.9);
    expect(translated.components).toMatchObject({ efficiency: 1 });
    // A translation that drops the facts keeps none of the words' credit either.
    const vague = kept(
      "Der Planer sichert regelmäßig und räumt alte Sicherungen auf; bei Fehlern wird der Betreiber informiert, und die Protokolle werden aufbewahrt.",
      english,
      "text",
    );
    expect(vague.semantic_density_score).toBeLessThan(0.2);
  });

  it("counts the source's values only as much as the content ties them to words", () => {
    const log = [
      "commit 9fbd47ba6bdf38b618795541ee517b7e2fa2c6df fixes the proxy header on /responses (#1663)",
      "commit 646e7055143638ac4a2bc9980649fd046cea7840 aligns the savings headline (#1653)",
      "commit 5fe4e7b19530da0c2d07d17f20b18d79b6fab367 exposes persistent savings metrics (#1647)",
      "commit c600e314b3758e2a4a10f7cd39c5a3a171f08c51 honours CLAUDE_CONFIG_DIR for logs (#1642)",
      "The release listens on ports 80, 443 and 8080 and retries 3 times within 250 ms.",
      "Version 2.4.1 ships on 2026-07-02 with 14 fixes and 3 features in 12 files.",
    ].join("\n");
    const values = [
      "9fbd47ba6bdf38b618795541ee517b7e2fa2c6df",
      "646e7055143638ac4a2bc9980649fd046cea7840",
      "5fe4e7b19530da0c2d07d17f20b18d79b6fab367",
      "c600e314b3758e2a4a10f7cd39c5a3a171f08c51",
      "#1663 #1653 #1647 #1642 80 443 8080 3 250 ms 2.4.1 2026-07-02 14 3 12",
    ].join("\n");
    const lone = kept(values, log, "text");
    expect(lone.semantic_density_score).toBe(0);
    expect(lone.components).toMatchObject({ values: 0 });
    // Values in a list after their label, or in notes, are tied to what they are.
    const notes = kept(
      "Commits 9fbd47ba6bdf38b618795541ee517b7e2fa2c6df, 646e7055143638ac4a2bc9980649fd046cea7840, 5fe4e7b19530da0c2d07d17f20b18d79b6fab367, c600e314b3758e2a4a10f7cd39c5a3a171f08c51 (#1663, #1653, #1647, #1642); ports: 80, 443, 8080; 3 retries in 250 ms; v2.4.1 on 2026-07-02: 14 fixes, 3 features, 12 files.",
      log,
      "text",
    );
    expect(notes.components).not.toHaveProperty("values");
    expect(notes.semantic_density_score).toBeGreaterThan(0.3);
  });
});
