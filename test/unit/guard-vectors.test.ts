import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluatePass, type CompressionPass, type CompressionPolicy } from "@/lib/guard/guard";
import { evaluateItemSchema } from "@/lib/schemas/guard";

interface GuardCase {
  pass: CompressionPass;
  policy: CompressionPolicy;
  expect: { verdict: string; directive: string; manifest_digest: string };
}

const cases: GuardCase[] = JSON.parse(readFileSync(path.join(__dirname, "../fixtures/guard-public.json"), "utf8"));

describe("collapse guard: public reference vectors", () => {
  it("has the vectors", () => expect(cases.length).toBeGreaterThan(100));
  it.each(cases.map((c, i) => [i, c] as const))("case %i", (_i, c) => {
    const item = evaluateItemSchema.parse({ pass: c.pass, policy: c.policy });
    expect(evaluatePass(item.pass, item.policy)).toEqual(c.expect);
  });
});
