// The worked examples of docs/measurement.md: each ```json example block (a request, the keys
// POST /api/v1/measure takes) with the ```json answer block after it. The unit test runs them
// through measure(), the integration test through the route.
import type { MeasureFormat } from "@/lib/measure/index";
import { blocksUnder } from "./markdown";

export interface MeasureExample {
  content: string;
  source?: string;
  format?: MeasureFormat;
  required_fields?: string[];
  originals?: Record<string, string>;
}

export function workedExamples(): { request: MeasureExample; answer: unknown }[] {
  const blocks = blocksUnder("docs/measurement.md", "## Worked examples").filter((b) => b.lang === "json");
  const pairs: { request: MeasureExample; answer: unknown }[] = [];
  for (let i = 0; i < blocks.length; i += 2) {
    const [example, answer] = [blocks[i], blocks[i + 1]];
    if (example?.info !== "example" || answer?.info !== "answer") {
      throw new Error(`docs/measurement.md: json block ${i + 1} is not an example followed by its answer`);
    }
    pairs.push({ request: JSON.parse(example.code) as MeasureExample, answer: JSON.parse(answer.code) });
  }
  return pairs;
}
