// The method's answers may not move while its implementation gets faster: every field of
// measureDetailed (recoverable examples included) equals the frozen copy's in
// test/support/measure-oracle, on the labelled chains, the docs' worked examples and thousands
// of generated cases, measured in an order where sources repeat (as ingest measures every pass
// of a chain against its source) and with the caches both warm and cleared.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clearMeasureCache, type MeasureOptions, measureDetailed } from "@/lib/measure/index";
import * as oracle from "../../support/measure-oracle/index";
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
    const want = oracle.measureDetailed(r.content, optionsOf(r));
    const got = measureDetailed(r.content, optionsOf(r));
    expect(got, JSON.stringify(r).slice(0, 400)).toStrictEqual(want);
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

describe("measure against its frozen oracle", () => {
  it("gives the oracle's answers on the labelled chains", () => {
    expect(chains.length).toBeGreaterThanOrEqual(20);
    const requests = chainRequests();
    clearMeasureCache();
    oracle.clearMeasureCache();
    expectSame(requests);
    // Again, with everything measured before still held.
    expectSame(requests);
  });

  it("gives the oracle's answers on the corpus of real content", () => {
    const requests = corpusRequests();
    expect(requests.length).toBeGreaterThan(600);
    clearMeasureCache();
    expectSame(requests);
  }, 120_000);

  it("gives the oracle's answers on the docs' worked examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    clearMeasureCache();
    expectSame(examples);
    expectSame(examples);
  });

  it("gives the oracle's answers on generated cases, sources repeating", () => {
    const requests = [...generatedRequests(2000, 20261202), ...generatedRequests(1500, 7)];
    expect(requests.length).toBeGreaterThan(5000);
    expectSame(requests);
  }, 300_000);

  it("gives the oracle's answers with the caches cleared between measurements", () => {
    const requests = generatedRequests(400, 99);
    for (const r of requests) {
      clearMeasureCache();
      expectSame([r]);
    }
  }, 120_000);
});
