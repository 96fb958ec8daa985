// The fast implementation (lib/measure) gives the reference implementation's answers
// (test/support/measure-reference: the method written plainly), every field of
// measureDetailed, recoverable examples included: on the labelled chains, the corpus of real
// content, the docs' worked examples, thousands of generated cases and fast-check's inputs,
// measured in an order where sources repeat (as ingest measures every pass of a chain against
// its source) and with the fast code's caches both warm and cleared. The reference keeps
// nothing between measurements, so a difference is the fast code's, or a rule the two do not
// share: either way a change of the method's answers, which needs a new method version.
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clearMeasureCache, type MeasureOptions, measureDetailed } from "@/lib/measure/index";
import * as reference from "../../support/measure-reference/index";
import { content, options, ruleCase } from "../../support/measure-arbitraries";
import { generatedCases, type MeasureCase } from "../../support/measure-cases";

interface Request {
  content: string;
  source?: string | null;
  format?: MeasureOptions["format"];
  required_fields?: string[];
  originals?: Record<string, string>;
}

function optionsOf(r: Request): MeasureOptions {
  return {
    source: r.source ?? null,
    format: r.format ?? "any",
    requiredFields: r.required_fields ?? [],
    originals: r.originals ? new Map(Object.entries(r.originals)) : undefined,
  };
}

function expectSame(requests: readonly Request[]): void {
  for (const r of requests) {
    const got = measureDetailed(r.content, optionsOf(r));
    expect(got, JSON.stringify(r).slice(0, 400)).toStrictEqual(reference.measureDetailed(r.content, optionsOf(r)));
  }
}

interface LabelledChain {
  format: MeasureOptions["format"];
  required_fields?: string[];
  source: string;
  paraphrase?: string;
  passes: { content: string }[];
}

const FIXTURES = "test/fixtures/measurement";
const chains = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .flatMap((name) => (JSON.parse(readFileSync(`${FIXTURES}/${name}`, "utf8")) as { chains: LabelledChain[] }).chains);

/** Every pass of every labelled chain, with the variants the chains test builds, in every format. */
function chainRequests(): Request[] {
  const out: Request[] = [];
  for (const chain of chains) {
    const contents = [
      ...chain.passes.map((p) => p.content),
      chain.source,
      chain.paraphrase ?? "",
      `${chain.source} ${chain.source}`,
      "The document discusses various topics.",
      "{}",
      Buffer.from(chain.source).toString("base64"),
    ];
    for (const format of [chain.format, "any", "text"] as const) {
      for (const content of contents) {
        out.push({ content, source: chain.source, format, required_fields: chain.required_fields });
        out.push({ content, format, required_fields: chain.required_fields });
      }
    }
  }
  return out;
}

interface CorpusChain {
  format: MeasureOptions["format"];
  source: string;
  passes: { content: string }[];
}
interface CorpusCase {
  format: MeasureOptions["format"];
  source: string;
  content: string;
}
const CORPUS = "test/fixtures/measurement-corpus";
const corpus = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map(
    (name) =>
      JSON.parse(readFileSync(`${CORPUS}/${name}`, "utf8")) as { chains: CorpusChain[]; adversarial: CorpusCase[] },
  );

/** 76 characters a line, as base64(1) and MIME write it; CRLF when asked. */
const wrapped = (text: string, eol = "\n") =>
  `${(
    Buffer.from(text)
      .toString("base64")
      .match(/.{1,76}/g) ?? []
  ).join(eol)}${eol}`;

/**
 * The corpus of real content (diffs, reshaped JSON, wrapped base64: what floorline-facts/4
 * reads anew), each pass in its format and in `any`, with and without a required field, and
 * each source wrapped as base64 against itself.
 */
function corpusRequests(): Request[] {
  const out: Request[] = [];
  const cases = corpus.flatMap((file) => [
    ...file.chains.flatMap((c) => c.passes.map((p) => ({ format: c.format, source: c.source, content: p.content }))),
    ...file.adversarial,
  ]);
  for (const c of cases) {
    for (const format of [c.format, "any"] as const) {
      out.push({ content: c.content, source: c.source, format });
      out.push({ content: c.content, source: c.source, format, required_fields: ["name"] });
    }
    out.push({ content: wrapped(c.content), source: wrapped(c.source, "\r\n"), format: "any" });
    out.push({ content: wrapped(c.source), source: c.source, format: "base64" });
  }
  // Tokens of more runs than a measurement reads (64), alone and against the corpus's sources.
  const runs = Array.from({ length: 100 }, (_, i) => i + 1).join(":");
  for (const content of [runs, `a=${"b=".repeat(80)}c`, `Fehler ${"x-".repeat(70)}y Ende`])
    for (const source of [null, runs.replaceAll(":", " "), ...cases.slice(0, 3).map((c) => c.source)])
      out.push({ content, source, format: "any" });
  return out;
}

const page = readFileSync("docs/measurement.md", "utf8");
const examples = [...page.matchAll(/```json example\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] ?? "") as Request);

/** Generated cases, each followed by other contents measured against its source. */
function generatedRequests(count: number, seed: number): Request[] {
  const cases = generatedCases(count, seed);
  const out: Request[] = [];
  cases.forEach((c: MeasureCase, i) => {
    out.push(c);
    if (c.source == null) return;
    for (const k of [1, 2, 5]) {
      const other = cases[(i + k) % cases.length] as MeasureCase;
      out.push({ ...c, content: other.content });
    }
    out.push(c);
  });
  return out;
}

/** Sources and contents where notation meets facts (since floorline-facts/4), shared with the Python cross test. */
const notation = JSON.parse(readFileSync("test/fixtures/measurement-notation.json", "utf8")) as {
  sources: string[];
  contents: string[];
};

function notationRequests(): Request[] {
  const out: Request[] = [];
  for (const source of notation.sources)
    for (const content of [...notation.contents, ...notation.sources])
      for (const format of ["text", "any"] as const) out.push({ content, source, format });
  return out;
}

describe("measure against its reference implementation", () => {
  it("gives the reference's answers on the labelled chains", () => {
    expect(chains.length).toBeGreaterThanOrEqual(20);
    const requests = chainRequests();
    clearMeasureCache();
    expectSame(requests);
    // Again, with everything measured before still held.
    expectSame(requests);
  });

  it("gives the reference's answers on the corpus of real content", () => {
    const requests = corpusRequests();
    expect(requests.length).toBeGreaterThan(600);
    clearMeasureCache();
    expectSame(requests);
  }, 120_000);

  it("gives the reference's answers where notation meets facts", () => {
    expectSame(notationRequests());
  });

  it("gives the reference's answers on the docs' worked examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    clearMeasureCache();
    expectSame(examples);
    expectSame(examples);
  });

  it("gives the reference's answers on generated cases, sources repeating", () => {
    const requests = [...generatedRequests(2000, 20261202), ...generatedRequests(1500, 7)];
    expect(requests.length).toBeGreaterThan(5000);
    expectSame(requests);
  }, 300_000);

  it("gives the reference's answers with the caches cleared between measurements", () => {
    const requests = generatedRequests(400, 99);
    for (const r of requests) {
      clearMeasureCache();
      expectSame([r]);
    }
  }, 120_000);

  it("gives the reference's answers on fast-check's inputs", () => {
    fc.assert(
      fc.property(content, options, (content, opts) => {
        const originals = new Map([["a1b2c3d4e5f6a7b8", opts.source ?? ""]]);
        expect(measureDetailed(content, { ...opts, originals })).toStrictEqual(
          reference.measureDetailed(content, { ...opts, originals }),
        );
      }),
      { numRuns: 1000 },
    );
    // Sources and contents made of every rule's pieces, the fast code's caches cleared now and then.
    let runs = 0;
    fc.assert(
      fc.property(ruleCase, ({ content, options }) => {
        if (++runs % 7 === 0) clearMeasureCache();
        expect(measureDetailed(content, options)).toStrictEqual(reference.measureDetailed(content, options));
      }),
      { numRuns: 2000 },
    );
  }, 120_000);
});
