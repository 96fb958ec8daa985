// The shared labelling standard's chains of real content (a man page, an HTTP server's log, an
// API response in JSON, a unified diff) and its adversarial cases, copied from the project's
// shared measurement folder: the measure must keep each in its band, as the outside checks try
// chains like them on every change.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type MeasureFormat, measure } from "@/lib/measure/index";

interface Example {
  chain_id: string;
  format: MeasureFormat;
  required_fields?: string[];
  source: string;
  passes: { label: "faithful" | "lossy" | "void"; content: string }[];
}
interface Adversarial {
  name: string;
  format?: MeasureFormat;
  source: string;
  content: string;
  max: number;
}

const file = JSON.parse(readFileSync("test/fixtures/measurement-examples/real-examples.json", "utf8")) as {
  chains: Example[];
  adversarial: Adversarial[];
};

describe("the shared real examples", () => {
  for (const chain of file.chains) {
    it(`${chain.chain_id}: faithful >= 0.6 > moderately lossy > void <= 0.2`, () => {
      const score = (content: string) =>
        measure(content, { source: chain.source, format: chain.format, requiredFields: chain.required_fields })
          .semantic_density_score;
      const of = (label: string) => chain.passes.filter((p) => p.label === label).map((p) => score(p.content));
      const [faithful, voids, lossy] = [of("faithful"), of("void"), of("lossy")];
      // Lossy passes come moderately lossy first, then severely lossy.
      const [moderately, ...severely] = lossy;
      expect(faithful.length).toBeGreaterThan(0);
      for (const f of faithful) expect(f).toBeGreaterThanOrEqual(0.6);
      for (const v of voids) expect(v).toBeLessThanOrEqual(0.2);
      expect(Math.min(...faithful)).toBeGreaterThan(moderately as number);
      expect(moderately as number).toBeGreaterThan(Math.max(...voids));
      for (const s of severely) expect(s).toBeGreaterThanOrEqual(Math.max(...voids));
    });
  }

  for (const c of file.adversarial) {
    it(`${c.name}: at most ${c.max}`, () => {
      expect(
        measure(c.content, { source: c.source, format: c.format ?? "any" }).semantic_density_score,
      ).toBeLessThanOrEqual(c.max);
    });
  }
});
