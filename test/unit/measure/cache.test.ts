// A chain measures every pass against one source: the source is analysed once and its analysis
// reused, while what contents bring (request ids, paths) is kept only in the lexicon's zone,
// bounded, and emptied before a new source is analysed. The answers themselves are held to the reference implementation (reference.test.ts).
import { describe, expect, it } from "vitest";
import { clearMeasureCache, measure, measureDetailed, measureStats, ZONE_LIMIT } from "@/lib/measure/index";
import { Lexicon } from "@/lib/measure/lexicon";
import { readDoc } from "@/lib/measure/read";
import { KnownLines, TokenStore } from "@/lib/measure/scan";
import { openSync, closeSync } from "node:fs";
import measureRun, { PROGRESS_BYTES, progressOf, threadCpuNs } from "@/lib/measure/worker";
import * as reference from "../../support/measure-reference/index";

const logLine = (pass: number, i: number) =>
  `2026-11-30T10:${String(pass % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z INFO api request id=r${pass}-${i} path=/orders/${pass * 97 + i} status=200 ms=${(i * 7) % 300}`;
const log = (pass: number) => Array.from({ length: 40 }, (_, i) => logLine(pass, i)).join("\n");

describe("the source's analysis", () => {
  it("is made once per source and reused by every pass measured against it", () => {
    clearMeasureCache();
    const source = log(0);
    const before = measureStats();
    const answers = [1, 2, 3, 4, 5].map((pass) => measure(log(pass), { source, format: "text" }));
    const after = measureStats();
    expect(after.sourcesAnalysed - before.sourcesAnalysed).toBe(1);
    expect(after.sourcesReused - before.sourcesReused).toBe(4);
    // A source equal in text, built anew, is the same source.
    measure(log(6), { source: log(0).slice(0), format: "text" });
    expect(measureStats().sourcesAnalysed - before.sourcesAnalysed).toBe(1);
    // Reusing it changes nothing: the same answer as from scratch.
    clearMeasureCache();
    expect(measure(log(5), { source, format: "text" })).toStrictEqual(answers[4]);
  });

  it("keeps the lexicon from growing with contents it will not see again", () => {
    clearMeasureCache();
    const source = log(0);
    measure(log(1), { source, format: "text" });
    const size = measureStats().lexiconSize;
    expect(size).toBeGreaterThan(0);
    for (let pass = 2; pass < 60; pass++) measure(log(pass), { source, format: "text" });
    expect(measureStats().lexiconSize).toBe(size);
  });

  it("keeps what contents bring in a zone for the next passes, emptied before a new source", () => {
    clearMeasureCache();
    const source = log(0);
    measure(log(1), { source, format: "text" });
    const size = measureStats().lexiconSize;
    const zone = measureStats().zoneSize;
    expect(zone).toBeGreaterThan(0);
    // The same content again brings nothing new: its tokens are in the zone.
    measure(log(1), { source, format: "text" });
    expect(measureStats().zoneSize).toBe(zone);
    // A new source is analysed outside the zone, which goes first.
    measure("", { source: log(30), format: "text" });
    expect(measureStats().zoneSize).toBe(0);
    expect(measureStats().lexiconSize).toBeGreaterThan(size);
  });

  it("takes in for good a token that contents of two zones bring", () => {
    clearMeasureCache();
    measure(`${log(2)}\nshared-token-77x`, { source: log(0), format: "text" });
    measure("", { source: log(40), format: "text" });
    const size = measureStats().lexiconSize;
    // First in the second content, last in the first: no token of theirs in between can take its
    // place in the table of recent tokens (one hash per slot, and the hash is drawn per process).
    measure(`shared-token-77x\n${log(3)}`, { source: log(40), format: "text" });
    expect(measureStats().lexiconSize).toBe(size);
    // When the zone goes, the token that two of its contents brought stays.
    measure("", { source: log(50), format: "text" });
    const grown = measureStats().lexiconSize;
    expect(grown).toBeGreaterThan(size);
    // And is no longer in the zone: measuring it adds nothing there.
    measure("shared-token-77x", { source: log(50), format: "text" });
    expect(measureStats().zoneSize).toBe(0);
  });

  it("takes the zone out once it holds more than its bound", () => {
    clearMeasureCache();
    const source = log(0);
    let largest = 0;
    let emptied = false;
    for (let pass = 1; pass < 400 && !emptied; pass++) {
      const before = measureStats().zoneSize;
      // About 4,000 tokens no earlier content brought.
      const content = Array.from({ length: 4000 }, (_, i) => `t${pass}x${i}`).join(" ");
      measure(content, { source, format: "text" });
      const after = measureStats().zoneSize;
      largest = Math.max(largest, after);
      emptied = after < before;
    }
    expect(emptied).toBe(true);
    expect(largest).toBeLessThanOrEqual(ZONE_LIMIT);
  });

  it("leaves the lexicon as it was when a measurement throws half way", () => {
    clearMeasureCache();
    const source = log(0);
    measure(log(1), { source, format: "text" });
    const size = measureStats().lexiconSize;
    const marker = "[5 items compressed to 1. Retrieve more: hash=a1b2c3d4e5f6a7b8]";
    const failing = () => {
      throw new Error("the store is gone");
    };
    expect(() => measure(`${log(2)} ${marker}`, { source, format: "text", originals: failing })).toThrow(
      "the store is gone",
    );
    expect(measureStats().lexiconSize).toBe(size);
    const content = `${log(3)} ${marker}`;
    const originals = new Map([["a1b2c3d4e5f6a7b8", log(4)]]);
    expect(measureDetailed(content, { source, format: "text", originals })).toStrictEqual(
      reference.measureDetailed(content, { source, format: "text", originals }),
    );
  });

  it("measures from inside a measurement (an originals function that measures) as from outside", () => {
    clearMeasureCache();
    const source = log(0);
    const inner: unknown[] = [];
    const originals = (hash: string) => {
      inner.push(measureDetailed(log(7), { source: log(8), format: "text" }));
      return hash === "a1b2c3d4e5f6a7b8" ? log(5) : undefined;
    };
    const content = `${log(6)} hash=a1b2c3d4e5f6a7b8`;
    const outer = measureDetailed(content, { source, format: "text", originals });
    expect(outer).toStrictEqual(
      reference.measureDetailed(content, {
        source,
        format: "text",
        originals: new Map([["a1b2c3d4e5f6a7b8", log(5)]]),
      }),
    );
    expect(inner).toHaveLength(1);
    expect(inner[0]).toStrictEqual(reference.measureDetailed(log(7), { source: log(8), format: "text" }));
    // And the kept lexicon still answers as the reference does.
    expect(measureDetailed(log(9), { source, format: "text" })).toStrictEqual(
      reference.measureDetailed(log(9), { source, format: "text" }),
    );
  });
});

describe("a content's lines that its source states as they are", () => {
  // They take the source's tokens (scan.ts KnownLines) instead of being scanned again: the same
  // tokens and flags as the scan gives, or the answers would change.
  const german = [
    "Der Server startet den Dienst und die Verbindung wird mit dem Netzwerk hergestellt.",
    "Die Konfiguration der Datenbank liegt in der Datei und wird beim Start gelesen.",
    "Wenn der Speicher voll ist, wird die Anwendung mit einem Fehler beendet.",
  ];
  const english = [
    "The server starts the service and then connects to the network of the cluster in Frankfurt, as it should.",
    german[1] as string,
    "When the memory of the machine runs out, the application stops with an error that says so.",
    "It is restarted by the supervisor after a minute, and the operator gets a page about it.",
  ];
  /** Each line's tokens and flags, as the store holds them. */
  const linesOf = (store: TokenStore) =>
    Array.from({ length: store.lines }, (_, l) => {
      const from = store.lineStart[l] as number;
      const to = store.lineStart[l + 1] as number;
      return [store.lineString(l), [...store.tokens.subarray(from, to)], [...store.flags.subarray(from, to)]];
    });

  it.each([
    ["an English source's lines, one of them German", english.join("\n"), english.join("\n")],
    ["a line of a source read as German (its capitals keywords)", english.join("\n"), german.join("\n")],
    [
      "an English source's line in a text read as German",
      german.concat(english[0] as string).join("\n"),
      english.join("\n"),
    ],
    ["JSON strings, a source's lines", JSON.stringify({ notes: english }), english.join("\n")],
    ["a JSON source's string read as German", english.join("\n"), JSON.stringify({ notes: german })],
  ])("take the tokens scanning gives: %s", (_, content, source) => {
    const lexicon = new Lexicon();
    const sourceStore = new TokenStore(lexicon);
    readDoc(lexicon, source, false, sourceStore);
    const known = new KnownLines(sourceStore);
    // A content is read in the lexicon's zone, as a measurement reads it.
    lexicon.begin();
    const scanned = new TokenStore(lexicon);
    readDoc(lexicon, content, false, scanned);
    const taking = new TokenStore(lexicon);
    taking.known = known;
    readDoc(lexicon, content, false, taking);
    expect(linesOf(taking)).toStrictEqual(linesOf(scanned));
  });

  it("take their tokens from the source's store rather than scanning them", () => {
    const lexicon = new Lexicon();
    const sourceStore = new TokenStore(lexicon);
    readDoc(lexicon, english.join("\n"), false, sourceStore);
    const known = new KnownLines(sourceStore);
    // Line 2's first token made another in the source's store: a content that takes the line
    // from there has it, a content that scans the line does not.
    const at = sourceStore.lineStart[2] as number;
    const other = sourceStore.tokens[sourceStore.lineStart[0] as number] as number;
    expect(sourceStore.tokens[at]).not.toBe(other);
    sourceStore.tokens[at] = other;
    lexicon.begin();
    const taking = new TokenStore(lexicon);
    taking.known = known;
    readDoc(lexicon, `${english[2]}\nnot a line of the source`, false, taking);
    expect(taking.tokens[0]).toBe(other);
  });

  it("are found, and only with the same characters", () => {
    const lexicon = new Lexicon();
    const store = new TokenStore(lexicon);
    readDoc(lexicon, english.join("\n"), false, store);
    const known = new KnownLines(store);
    const line = english[2] as string;
    expect(known.find(`x${line}x`, 1, line.length + 1)).toBe(2);
    expect(known.find(line.toUpperCase(), 0, line.length)).toBe(-1);
    expect(known.find(line.slice(0, -1), 0, line.length - 1)).toBe(-1);
  });
});

describe("a kept analysis", () => {
  it("costs in proportion to its source, not to the ids the lexicon has given out", () => {
    clearMeasureCache();
    // A source of many distinct keys and values first: later sources' tokens get ids past
    // 100,000 (the lexicon stays under its limit, so it is kept).
    const lines = Array.from({ length: 12_000 }, (_, i) => `request id=r${i} path=/orders/${i} user=u${i}`);
    measure("request id=r1", { source: lines.join("\n"), format: "text" });
    expect(measureStats().lexiconSize).toBeGreaterThan(100_000);
    const before = process.memoryUsage().arrayBuffers;
    // Small sources and contents of new tokens: each analysis keeps its records and pairs.
    for (let s = 0; s < 300; s++) {
      const source = Array.from({ length: 8 }, (_, i) => `item ${s}-${i} code=c${s}x${i} owner=o${s}y${i} w${i}x`).join(
        "\n",
      );
      measure(`item ${s}-1 code=c${s}x1 owner=o${s}y1`, { source, format: "text" });
    }
    const grown = (process.memoryUsage().arrayBuffers - before) / 1e6;
    // An array by id in each of them held about 0.9 MB here (260 MB for these 300, 4 MB each
    // with the lexicon near its limit); in proportion to their sources, all of them hold a few
    // MB, with garbage not yet collected (30 MB seen).
    expect(grown).toBeLessThan(100);
  });
});

describe("a worker past its kept bound", () => {
  const run = (source: string, content: string) =>
    measureRun({
      sources: [source],
      // A bound of one byte: every check finds the thread past it.
      tasks: [{ content, source: 0, format: "text", keepHeapBytes: 1 }],
      progress: new SharedArrayBuffer(PROGRESS_BYTES),
    })[0]!;

  it("drops what it keeps before a source it does not hold, never the one the measurement needs", () => {
    clearMeasureCache();
    const source = log(900);
    const first = run(source, log(901));
    expect(first.cacheDropped).toBe(true);
    const analysed = measureStats().sourcesAnalysed;
    // The next passes of the same chain: past the bound all the same, the source's analysis stays.
    const later = [902, 903, 904].map((pass) => run(source, log(pass)));
    expect(later.map((r) => r.cacheDropped)).toEqual([false, false, false]);
    expect(measureStats().sourcesAnalysed).toBe(analysed);
    expect(later[2]!.measurement).toEqual(measureDetailed(log(904), { source, format: "text" }));
  });
});

describe("a measurement's budget (lib/measure/pool.ts)", () => {
  it.runIf(process.platform === "linux")("is of the thread's CPU time: a wait does not count", async () => {
    const fd = openSync("/proc/thread-self/schedstat", "r");
    try {
      const ms = () => threadCpuNs(fd) / 1e6;
      const start = ms();
      const until = performance.now() + 60;
      while (performance.now() < until);
      const spun = ms() - start;
      await new Promise((resolve) => setTimeout(resolve, 120));
      const waited = ms() - start - spun;
      // Spinning for 60 ms spends about 60 ms of the thread's CPU (less when the machine is
      // busy); waiting 120 ms spends next to none.
      expect(spun).toBeGreaterThan(5);
      expect(spun).toBeLessThan(200);
      expect(waited).toBeLessThan(spun);
      expect(waited).toBeLessThan(30);
    } finally {
      closeSync(fd);
    }
  });

  it.runIf(process.platform === "linux")(
    "tells the pool the thread and its CPU time as each measurement starts",
    () => {
      const progress = new SharedArrayBuffer(PROGRESS_BYTES);
      measureRun({ sources: [], tasks: [{ content: "disk 91% full", source: null, format: "text" }], progress });
      const { started, thread, cpuAt } = progressOf(progress);
      expect(started[0]).toBe(1);
      expect(thread[0]).toBeGreaterThan(0);
      const fd = openSync(`/proc/self/task/${thread[0]}/schedstat`, "r");
      try {
        const at = Number(cpuAt[0]);
        expect(at).toBeGreaterThan(0);
        expect(threadCpuNs(fd)).toBeGreaterThanOrEqual(at);
      } finally {
        closeSync(fd);
      }
    },
  );
});
