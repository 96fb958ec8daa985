// The demo agent's compressors, and the demo agent run offline: each failure mode of the
// seeds appears because the content collapsed, not because a number was typed in.
import { describe, expect, it } from "vitest";
import { DEMO_POLICIES, runDemoAgent } from "@/demo/agent";
import { degradeBase64, encodeBase64 } from "@/lib/compressors/degrade";
import { crushJson, dropEmpty } from "@/lib/compressors/json-crusher";
import { crushLogs } from "@/lib/compressors/logs";
import { sentences, summarise } from "@/lib/compressors/summarise";

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

  it("dropEmpty drops every empty value, a zero the consumer needed too", () => {
    const doc = JSON.stringify({
      id: 1,
      note: "",
      tags: [],
      items: [
        { sku: "A", quantity: 0 },
        { sku: "B", quantity: 2 },
      ],
    });
    expect(JSON.parse(dropEmpty(doc))).toEqual({ id: 1, items: [{ sku: "A" }, { sku: "B", quantity: 2 }] });
  });

  it("encodeBase64 puts text into base64 whole", () => {
    expect(Buffer.from(encodeBase64("Zoë Łódź"), "base64").toString("utf8")).toBe("Zoë Łódź");
  });

  it("crushLogs removes the least severe level still present", () => {
    const logs = ["t DEBUG a", "t INFO b", "t ERROR c 1", "t ERROR c 2"].join("\n");
    expect(crushLogs(logs)).toBe("t INFO b\nt ERROR c 1\nt ERROR c 2");
    expect(crushLogs("t ERROR c 1\nt ERROR c 2")).toBe("t ERROR c 1 (x2)");
  });
});

describe("the demo agent, offline", () => {
  it("shows each failure mode where the content collapsed", async () => {
    // Offline the floors come from code: the client has no server to read them from.
    const { lines } = await runDemoAgent("t", { policies: DEMO_POLICIES });
    const line = (name: string) => lines.find((l) => l.chain === `t-${name}`)?.what ?? "";
    expect(line("healthy-orders")).toContain("no breach");
    expect(line("schema-truncation")).toMatch(
      /restore at pass \d+: HALT: Pass t-schema-truncation\.p\d+ schema invalid\./,
    );
    expect(line("semantic-void")).toMatch(/halt at pass \d+: HALT: Density 0\.\d\d < 0\.45\./);
    expect(line("encoding-degradation")).toMatch(
      /accept_loss at pass \d+: HALT: Pass t-encoding-degradation\.p\d+ unparseable/,
    );
    expect(line("schema-truncation")).toContain("then pass 6 from pass 5's output");
    const measured =
      line("claimed-density")
        .match(/measured (.*)$/)?.[1]
        ?.split(", ")
        .map(Number) ?? [];
    expect(measured).toHaveLength(4);
    expect(Math.min(...measured)).toBeLessThan(0.45);
  }, 60_000);
});
