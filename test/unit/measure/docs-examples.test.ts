// Every worked example of docs/measurement.md, run: a ```json example block (the request)
// followed by a ```json answer block (what measure must return, exactly).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type MeasureFormat, measure } from "@/lib/measure/index";

interface Example {
  content: string;
  source?: string;
  format?: MeasureFormat;
  required_fields?: string[];
  originals?: Record<string, string>;
}

const page = readFileSync("docs/measurement.md", "utf8");
const blocks = [...page.matchAll(/```json (example|answer)\n([\s\S]*?)\n```/g)].map((m) => ({
  kind: m[1],
  body: JSON.parse(m[2] ?? "") as unknown,
}));

describe("docs/measurement.md worked examples", () => {
  it("has examples, each followed by its answer", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const [i, b] of blocks.entries()) expect(b.kind).toBe(i % 2 === 0 ? "example" : "answer");
  });

  for (let i = 0; i + 1 < blocks.length; i += 2) {
    const example = blocks[i]?.body as Example;
    it(`example ${i / 2 + 1} gives its answer`, () => {
      const answer = measure(example.content, {
        source: example.source,
        format: example.format,
        requiredFields: example.required_fields,
        originals: example.originals ? new Map(Object.entries(example.originals)) : undefined,
      });
      expect(answer).toEqual(blocks[i + 1]?.body);
    });
  }
});
