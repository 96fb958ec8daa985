// The shared reference vectors, run through the built package: the SDK's guard and trace
// compressor are the server's, so they must match the reference byte for byte here too.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sdk } from "./load";

type Sdk = typeof import("../src/index");
interface GuardCase {
  pass: Parameters<Sdk["evaluatePass"]>[0];
  policy: Parameters<Sdk["evaluatePass"]>[1];
  expect: unknown;
}
interface TraceCase {
  nodes: Parameters<Sdk["compressTrace"]>[0];
  expect: { error?: string; node_id?: string };
}

const fixture = <T>(name: string) =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/${name}`, import.meta.url), "utf8")) as T[];

describe("the built SDK against the reference vectors", () => {
  it("evaluatePass matches every guard case byte for byte", () => {
    const cases = fixture<GuardCase>("guard-public.json");
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expect(JSON.stringify(sdk.evaluatePass(c.pass, c.policy))).toBe(JSON.stringify(c.expect));
  });

  it("compressTrace matches every trace case, failing closed where the reference does", () => {
    const cases = fixture<TraceCase>("trace-public.json");
    let failures = 0;
    for (const c of cases) {
      const expected = c.expect;
      if (expected.error) {
        failures++;
        expect(() => sdk.compressTrace(c.nodes)).toThrow(sdk.MissingVerificationReceiptError);
        try {
          sdk.compressTrace(c.nodes);
        } catch (error) {
          expect((error as InstanceType<typeof sdk.MissingVerificationReceiptError>).nodeId).toBe(expected.node_id);
        }
      } else {
        expect(JSON.stringify(sdk.compressTrace(c.nodes))).toBe(JSON.stringify(c.expect));
      }
    }
    expect(failures).toBeGreaterThan(0);
  });
});
