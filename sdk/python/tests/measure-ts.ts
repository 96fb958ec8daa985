// The TypeScript measurement as the cross-language test runs it (test_measure_cross.py):
// cases as a JSON array on stdin, `measureDetailed` of each as a JSON array on stdout.
import { readFileSync } from "node:fs";
import { type MeasureFormat, measureDetailed } from "../../../lib/measure/index";

interface Case {
  content: string;
  source?: string | null;
  format?: MeasureFormat;
  required_fields?: string[];
  originals?: Record<string, string>;
}

const cases = JSON.parse(readFileSync(0, "utf8")) as Case[];
const answers = cases.map((c) =>
  measureDetailed(c.content, {
    source: c.source ?? null,
    format: c.format ?? "any",
    requiredFields: c.required_fields ?? [],
    originals: c.originals ? new Map(Object.entries(c.originals)) : undefined,
  }),
);
process.stdout.write(JSON.stringify(answers));
