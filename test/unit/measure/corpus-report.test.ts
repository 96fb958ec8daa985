// The statistics of the corpus report (test/support/corpus-report.ts) on numbers made by hand, and the
// shape of the corpus files it reads (test/fixtures/measurement-corpus). No measurement is made here:
// the corpus's figures are in docs/measurement.md, "A corpus of real content".
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MEASURE_FORMATS } from "@/lib/measure/index";
import {
  auc,
  CORPUS_LABELS,
  type CorpusFile,
  inBand,
  inOrder,
  median,
  reportOn,
  spread,
  targets,
} from "@/test/support/corpus-report";

describe("AUC of high against low scores", () => {
  it("is 1 when every high score is above every low one, 0 the other way round", () => {
    expect(auc([0.9, 0.8, 0.61], [0.1, 0.2, 0.6])).toBe(1);
    expect(auc([0.1, 0.2], [0.9, 0.8])).toBe(0);
  });

  it("counts each pair, a tie as half", () => {
    // Pairs (0.3, 0.4) lost, (0.3, 0.1), (0.9, 0.4), (0.9, 0.1) won: 3 of 4.
    expect(auc([0.3, 0.9], [0.4, 0.1])).toBe(0.75);
    // (0.5, 0.5) a tie, (0.7, 0.5) won: 1.5 of 2.
    expect(auc([0.5, 0.7], [0.5])).toBe(0.75);
    expect(auc([0.5], [0.5])).toBe(0.5);
    // Two high, three low: 0.6 beats 0.2 and 0.4 and ties 0.6; 0.2 ties 0.2: (2.5 + 0.5) / 6.
    expect(auc([0.6, 0.2], [0.2, 0.4, 0.6])).toBe(0.5);
  });

  it("is NaN without a pair", () => {
    expect(auc([], [0.1])).toBeNaN();
    expect(auc([0.1], [])).toBeNaN();
  });
});

describe("bands", () => {
  it("holds faithful to 0.6 or more, void to 0.2 or less, moderately lossy strictly inside (0.2, 0.8)", () => {
    expect(inBand("faithful", 0.6)).toBe(true);
    expect(inBand("faithful", 0.5999)).toBe(false);
    expect(inBand("void", 0.2)).toBe(true);
    expect(inBand("void", 0.2001)).toBe(false);
    expect(inBand("moderately_lossy", 0.2)).toBe(false);
    expect(inBand("moderately_lossy", 0.2001)).toBe(true);
    expect(inBand("moderately_lossy", 0.7999)).toBe(true);
    expect(inBand("moderately_lossy", 0.8)).toBe(false);
  });

  it("wants each chain strictly ordered: faithful > moderately lossy > void", () => {
    expect(inOrder({ faithful: 0.9, moderately_lossy: 0.5, severely_lossy: 0.95, void: 0.1 })).toBe(true);
    expect(inOrder({ faithful: 0.7, moderately_lossy: 0.7, severely_lossy: 0.2, void: 0.1 })).toBe(false);
    expect(inOrder({ faithful: 0.9, moderately_lossy: 0.1, severely_lossy: 0, void: 0.1 })).toBe(false);
  });
});

describe("spread", () => {
  it("gives n, min, the median (mean of the middle two for an even count) and max", () => {
    expect(spread([0.5, 0.1, 0.9])).toEqual({ n: 3, min: 0.1, median: 0.5, max: 0.9 });
    expect(median([0.4, 0.1, 0.2, 0.8])).toBeCloseTo(0.3, 12);
    expect(median([])).toBeNaN();
  });
});

describe("a report on a hand-made corpus", () => {
  // Scores are read from the content itself: "score:0.42".
  const density = (content: string) => Number(content.split(":")[1]);
  const chain = (id: string, f: number, m: number, s: number, v: number) => ({
    chain_id: id,
    content_class: "docs",
    format: "text" as const,
    language: "en",
    origin: "by hand",
    source: "source",
    passes: [
      { label: "faithful" as const, content: `score:${f}` },
      { label: "moderately_lossy" as const, content: `score:${m}` },
      { label: "severely_lossy" as const, content: `score:${s}` },
      { label: "void" as const, content: `score:${v}` },
    ],
  });
  const corpus: CorpusFile = {
    about: "hand-made",
    chains: [chain("a", 0.9, 0.5, 0.3, 0.1), chain("b", 0.55, 0.85, 0.2, 0.3), chain("c", 0.7, 0.2, 0.1, 0)],
    adversarial: [
      {
        name: "x",
        kind: "k",
        format: "text",
        origin: "",
        source: "",
        content: "score:0.7",
        expected: "faithful",
        why: "",
      },
      {
        name: "y",
        kind: "k",
        format: "text",
        origin: "",
        source: "",
        content: "score:0.25",
        expected: "void",
        why: "",
      },
    ],
  };
  const report = reportOn(corpus, density);

  it("counts band errors per label", () => {
    expect(report.bandErrors.faithful).toEqual({ errors: 1, n: 3 });
    expect(report.bandErrors.void).toEqual({ errors: 1, n: 3 });
    expect(report.bandErrors.moderately_lossy).toEqual({ errors: 2, n: 3 });
  });

  it("lists the chains out of order, the AUC and the adversarial cases outside their band", () => {
    // c is in order although its moderately lossy pass is out of band (0.2 is not inside).
    expect(report.outOfOrder.map((c) => c.chain_id)).toEqual(["b"]);
    // Faithful 0.9, 0.55, 0.7 against void 0.1, 0.3, 0: all 9 pairs won.
    expect(report.aucVoidFaithful).toBe(1);
    expect(report.adversarial.filter((c) => !c.inBand).map((c) => c.name)).toEqual(["y"]);
    expect(report.perLabel.severely_lossy).toEqual({ n: 3, min: 0.1, median: 0.2, max: 0.3 });
  });

  it("says which targets are missed", () => {
    expect(targets(report).map((t) => t.met)).toEqual([false, false, false, false, true, false]);
  });
});

describe("the corpus files", () => {
  const names = ["dev", "held-out"];
  const halves = names.map(
    (half) => JSON.parse(readFileSync(`test/fixtures/measurement-corpus/${half}.json`, "utf8")) as CorpusFile,
  );

  it.each(halves.map((h, i) => [names[i], h] as const))("%s has the shape the report reads", (_, file) => {
    expect(file.about.length).toBeGreaterThan(0);
    expect(file.chains.length).toBeGreaterThanOrEqual(20);
    for (const chain of file.chains) {
      expect(
        chain.passes.map((p) => p.label),
        chain.chain_id,
      ).toEqual([...CORPUS_LABELS]);
      expect(MEASURE_FORMATS, chain.chain_id).toContain(chain.format);
      for (const key of ["chain_id", "content_class", "language", "origin", "source"] as const)
        expect(chain[key], `${chain.chain_id}.${key}`).toMatch(/\S/);
      for (const pass of chain.passes) expect(typeof pass.content).toBe("string");
    }
    for (const c of file.adversarial) {
      expect(["faithful", "moderately_lossy", "void"], c.name).toContain(c.expected);
      expect(MEASURE_FORMATS, c.name).toContain(c.format);
      expect(c.why, c.name).toMatch(/\S/);
      expect(c.kind, c.name).toMatch(/\S/);
    }
  });

  it("holds each chain once, in one half, in three or more languages and every class in both halves", () => {
    const ids = halves.flatMap((h) => h.chains.map((c) => c.chain_id));
    expect(new Set(ids).size).toBe(ids.length);
    const cases = halves.flatMap((h) => h.adversarial.map((c) => c.name));
    expect(new Set(cases).size).toBe(cases.length);
    expect(new Set(halves.flatMap((h) => h.chains.map((c) => c.language))).size).toBeGreaterThanOrEqual(3);
    const classes = (h: CorpusFile) => [...new Set(h.chains.map((c) => c.content_class))].sort();
    expect(classes(halves[0] as CorpusFile)).toEqual(classes(halves[1] as CorpusFile));
  });
});
