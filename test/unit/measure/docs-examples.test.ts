// Every worked example of docs/measurement.md, run: a ```json example block (the request)
// followed by a ```json answer block (what measure must return, exactly).
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";
import { workedExamples } from "../../support/measure-examples";

const examples = workedExamples();

describe("docs/measurement.md worked examples", () => {
  it("has examples, each followed by its answer", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
  });

  for (const [i, { request, answer }] of examples.entries()) {
    it(`example ${i + 1} gives its answer`, () => {
      const got = measure(request.content, {
        source: request.source,
        format: request.format,
        requiredFields: request.required_fields,
        originals: request.originals ? new Map(Object.entries(request.originals)) : undefined,
      });
      expect(got).toEqual(answer);
    });
  }
});
