// The labelled chains of test/fixtures/measurement (chains.json, the contract's sample, and
// more-chains.json, written here in other domains), held to the thresholds of the contract.
// Every chain of every file there is checked, so a chain dropped in later is too.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type MeasureFormat, measure } from "@/lib/measure/index";

interface LabelledPass {
  label: "faithful" | "lossy" | "void";
  content: string;
  schema_valid?: boolean;
}
interface LabelledChain {
  chain_id: string;
  /** The source reworded, every fact kept (not a pass). */
  paraphrase?: string;
  format: MeasureFormat;
  required_fields?: string[];
  source: string;
  passes: LabelledPass[];
}

const FIXTURES = "test/fixtures/measurement";
const chains = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .flatMap((name) => (JSON.parse(readFileSync(`${FIXTURES}/${name}`, "utf8")) as { chains: LabelledChain[] }).chains);

const optionsOf = (chain: LabelledChain) => ({
  source: chain.source,
  format: chain.format,
  requiredFields: chain.required_fields ?? [],
});
const density = (content: string, chain: LabelledChain, format = chain.format) =>
  measure(content, { ...optionsOf(chain), format }).semantic_density_score;

/** The first sentence of a text (up to . ! or ? and a space), or its first line. */
function firstSentence(text: string): string {
  const line = text.split("\n")[0] ?? text;
  const end = line.search(/[.!?]\s/);
  return end >= 0 ? line.slice(0, end + 1) : line;
}

describe.each(chains.map((c) => [c.chain_id, c] as const))("labelled chain %s", (_id, chain) => {
  it("never rises along the chain by more than 0.05", () => {
    const scores = chain.passes.map((p) => density(p.content, chain));
    for (let i = 1; i < scores.length; i++) {
      expect(scores[i], `pass ${i + 1} after ${scores[i - 1]}`).toBeLessThanOrEqual((scores[i - 1] as number) + 0.05);
    }
  });

  it("puts faithful passes at 0.6 or more and void passes at 0.2 or less", () => {
    for (const pass of chain.passes) {
      const score = density(pass.content, chain);
      if (pass.label === "faithful") expect(score, pass.content).toBeGreaterThanOrEqual(0.6);
      if (pass.label === "void") expect(score, pass.content).toBeLessThanOrEqual(0.2);
    }
  });

  it("finds the labelled schema validity", () => {
    for (const pass of chain.passes) {
      if (pass.schema_valid === undefined) continue;
      expect(measure(pass.content, optionsOf(chain)).schema_valid, pass.content).toBe(pass.schema_valid);
    }
  });

  it("measures an exact copy of the source at 0.95 or more, and a paraphrase at 0.6 or more", () => {
    expect(density(chain.source, chain)).toBeGreaterThanOrEqual(0.95);
    if (chain.paraphrase !== undefined) {
      const m = measure(chain.paraphrase, optionsOf(chain));
      expect(m.semantic_density_score, JSON.stringify(m.lost_examples)).toBeGreaterThanOrEqual(0.6);
    }
  });

  it("keeps padding and filler low", () => {
    const first = firstSentence(chain.source);
    for (const times of [2, 3, 10]) {
      expect(density(Array(times).fill(first).join(" "), chain), `first sentence x${times}`).toBeLessThanOrEqual(0.5);
      expect(
        density(Array(times).fill(first).join("\n"), chain),
        `first sentence x${times}, lines`,
      ).toBeLessThanOrEqual(0.5);
    }
    const filler = "The document discusses various topics. ";
    expect(density(filler.repeat(12), chain)).toBeLessThanOrEqual(0.2);
    expect(density("{}", chain)).toBeLessThanOrEqual(0.1);
  });

  it("measures base64 of the source as the source, and random bytes as unparseable", () => {
    const encoded = Buffer.from(chain.source, "utf8").toString("base64");
    const asBase64 = measure(encoded, { ...optionsOf(chain), format: "base64" });
    const plain = measure(chain.source, optionsOf(chain));
    expect(asBase64.format).toBe("base64");
    expect(asBase64.parseable).toBe(true);
    expect(asBase64.semantic_density_score).toBe(plain.semantic_density_score);
    expect(asBase64.facts).toEqual(plain.facts);
    // Bytes 0x80-0xff in a row are never UTF-8.
    const random = Buffer.from(Array.from({ length: 300 }, (_, i) => 0x80 + ((i * 37) % 128))).toString("base64");
    for (const format of ["base64", "any"] as const) {
      const m = measure(random, { ...optionsOf(chain), format });
      expect(m.parseable).toBe(false);
      expect(m.semantic_density_score).toBe(0);
    }
  });
});

describe("paraphrases that keep every fact", () => {
  const notes = chains.find((c) => c.chain_id === "sample-release-notes");
  it("score at 0.6 or more", () => {
    if (!notes) throw new Error("the fixture has no chains");
    const paraphrase =
      "Version 3.9.0, released 2 May 2026, brings Parquet streaming exports of up to 4 GB, a --dry-run option for migrate and support for Postgres 17. It also fixes a scheduler memory leak seen with over 10,000 queued jobs (#4412) and CSV exports using the wrong time zone for UTC+5:45 (#4398). The /v1/export endpoint has been dropped in favour of /v2/export, and Node.js 20.9 is now the minimum.";
    const m = measure(paraphrase, { source: notes.source, format: "text" });
    expect(m.facts?.lost).toBe(0);
    expect(m.semantic_density_score).toBeGreaterThanOrEqual(0.6);
  });
});
