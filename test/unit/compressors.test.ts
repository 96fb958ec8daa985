// The demo agent's compressors, and the demo agent run offline: each failure mode of the
// seeds appears because the content collapsed, not because a number was typed in.
import { describe, expect, it } from "vitest";
import { DEMO_POLICIES, runDemoAgent } from "@/demo/agent";
import { degradeBase64 } from "@/lib/compressors/degrade";
import { crushJson } from "@/lib/compressors/json-crusher";
import { crushLogs } from "@/lib/compressors/logs";
import { sentences, summarise } from "@/lib/compressors/summarise";
import { Floorline } from "@/sdk/typescript/src/index";

describe("compressors", () => {
  it("crushJson drops the costliest unprotected field everywhere and halves long arrays", () => {
    const doc = JSON.stringify({
      id: 1,
      items: Array.from({ length: 10 }, (_, i) => ({ sku: `S${i}`, notes: "long ".repeat(10) })),
    });
    expect(JSON.parse(crushJson(doc, { protect: ["items"] }))).toEqual({
      id: 1,
      items: Array.from({ length: 5 }, (_, i) => ({ sku: `S${i}` })),
    });
  });

  it("summarise keeps the better-scored share of sentences in their order", () => {
    const text = "Alpha beta gamma. Beta gamma delta. Zeta eta. Beta gamma again.";
    const out = summarise(text);
    expect(sentences(out)).toHaveLength(2);
    expect(text.indexOf(sentences(out)[0] as string)).toBeLessThan(text.indexOf(sentences(out)[1] as string));
    expect(out).not.toContain("Zeta");
  });

  it("degradeBase64 stays valid base64 and cuts bytes", () => {
    const source = Buffer.from("Zoë Łódź ".repeat(10), "utf8");
    const out = degradeBase64(source.toString("base64"));
    expect(out).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(Buffer.from(out, "base64").length).toBe(Math.floor(source.length * 0.75));
  });

  it("crushLogs removes the least severe level still present", () => {
    const logs = ["t DEBUG a", "t INFO b", "t ERROR c 1", "t ERROR c 2"].join("\n");
    expect(crushLogs(logs)).toBe("t INFO b\nt ERROR c 1\nt ERROR c 2");
    expect(crushLogs("t ERROR c 1\nt ERROR c 2")).toBe("t ERROR c 1 (x2)");
  });
});

describe("the demo agent, offline", () => {
  it("shows each failure mode where the content collapsed", async () => {
    const fl = new Floorline({ policies: DEMO_POLICIES, cacheOriginals: true });
    const lines = await runDemoAgent(fl, (name) => `t-${name}`);
    const line = (name: string) => lines.filter((l) => l.startsWith(`t-${name}:`)).join("\n");
    expect(line("healthy-orders")).toContain("no breach");
    expect(line("schema-truncation")).toMatch(
      /restore at pass \d+: HALT: Pass t-schema-truncation\.p\d+ schema invalid\./,
    );
    expect(line("semantic-void")).toMatch(/halt at pass \d+: HALT: Density 0\.\d\d < 0\.45\./);
    expect(line("encoding-degradation")).toMatch(
      /accept_loss at pass \d+: HALT: Pass t-encoding-degradation\.p\d+ unparseable/,
    );
    const claimed = [...line("claimed-density").matchAll(/measured (0\.\d\d), verdict (\w+)/g)];
    expect(claimed.some(([, measured, verdict]) => Number(measured) < 0.45 && verdict === "SAFE_TO_COMPRESS")).toBe(
      true,
    );
  }, 60_000);
});
