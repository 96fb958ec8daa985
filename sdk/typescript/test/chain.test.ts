// recordPass and compressUntilFloor offline: the receipt is computed from the content and
// the verdict is the guard's on exactly what the receipt says.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sdk } from "./load";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const loose = { min_size_bytes: 10, min_semantic_density: 0.2, max_pass_number: 6 };

describe("recordPass", () => {
  it("hashes, sizes and numbers each pass, and guards it on those findings", () => {
    const fl = new sdk.Floorline({ policies: { notes: loose } });
    const chain = fl.chain("c-1", { contentClass: "notes" });
    const first = "é".repeat(400);
    const second = "é".repeat(200);
    const third = "ü".repeat(100);
    const a = chain.recordPass(first, second, { density: 0.9 });
    const b = chain.recordPass(second, third, { density: 0.7 });
    expect(a.receipt).toMatchObject({
      chain_id: "c-1",
      pass_id: "c-1.p1",
      pass_number: 1,
      input_content_hash: sha(first),
      current_content_hash: sha(second),
      current_size_bytes: 400,
      content_class: "notes",
      is_parseable: true,
      schema_valid: true,
    });
    expect(b.receipt.input_content_hash).toBe(a.receipt.current_content_hash);
    expect(b.receipt.pass_number).toBe(2);
    const expected = sdk.evaluatePass(b.receipt, loose);
    expect(b).toMatchObject({
      verdict: expected.verdict,
      directive: expected.directive,
      manifestDigest: expected.manifest_digest,
    });
    expect(b.receipt.verdict).toBe("SAFE_TO_COMPRESS");
    expect(b.receipt.manifest_digest).toBe(expected.manifest_digest);
  });

  it("sends the context's tools when given (docs/markers.md), and refuses what the server would", () => {
    const chain = new sdk.Floorline({ policies: { notes: loose } }).chain("c-tools", { contentClass: "notes" });
    const tools = ["read_file", "mcp__floorline__floorline_retrieve"];
    const sent = chain.recordPass("x".repeat(200), "y".repeat(100), { density: 0.9, contextTools: tools });
    expect(sent.receipt.context_tools).toEqual(tools);
    const without = chain.recordPass("y".repeat(100), "z".repeat(50), { density: 0.9 });
    expect(without.receipt).not.toHaveProperty("context_tools");
    expect(() => chain.recordPass("a", "b", { contextTools: ["x".repeat(129)] })).toThrow(/contextTools/);
    expect(() => chain.recordPass("a", "b", { contextTools: "bash" as unknown as string[] })).toThrow(/contextTools/);
  });

  it("judges parseability and required fields in the class's format", () => {
    const policy = { ...loose, format: "json" as const, required_fields: ["items.id"] };
    const chain = new sdk.Floorline({ policies: { docs: policy } }).chain("c-2", { contentClass: "docs" });
    const full = JSON.stringify({
      items: [
        { id: 1, v: "x ".repeat(20) },
        { id: 2, v: "y ".repeat(20) },
      ],
    });
    chain.recordPass(full, full.slice(0, -1).concat("}"), { density: 0.9 });
    const dropped = chain.recordPass(full, JSON.stringify({ items: [{ v: "x ".repeat(20) }, { id: 2 }] }), {
      density: 0.9,
    });
    expect(dropped.receipt).toMatchObject({ is_parseable: true, schema_valid: false });
    expect(dropped.verdict).toBe("FLOOR_BREACH_DETECTED");
    const broken = chain.recordPass(full, full.slice(0, 30), { density: 0.9 });
    expect(broken.receipt.is_parseable).toBe(false);
    expect(broken.directive).toBe("HALT: Pass c-2.p3 unparseable, restore previous.");
  });

  it("uses the server's conservative default floor offline when no policy is given", () => {
    const chain = new sdk.Floorline().chain("c-3");
    expect(chain.policy).toMatchObject(sdk.CONSERVATIVE_DEFAULT_POLICY);
    chain.recordPass("x ".repeat(500), "x ".repeat(450), { density: 0.9 });
    expect(chain.recordPass("x ".repeat(450), "x ".repeat(50), { density: 0.9 }).verdict).toBe("COLLAPSE_IMMINENT");
  });

  it("with cacheOriginals, hands on the output with the CCR marker of its input", () => {
    const chain = new sdk.Floorline({ cacheOriginals: true }).chain("c-4");
    const input = "the original text ".repeat(30);
    const result = chain.recordPass(input, "short", { density: 0.9 });
    const marker = `[Content compressed. Retrieve more: hash=${sha(input).slice(0, 24)}]`;
    expect(result.output).toBe(`short\n${marker}`);
    expect(result.receipt.current_content_hash).toBe(sha(result.output));
  });

  it("keeps JSON parseable when it adds the marker, and leaves base64 as it is", () => {
    const policies = { j: { ...loose, format: "json" as const }, b: { ...loose, format: "base64" as const } };
    const fl = new sdk.Floorline({ cacheOriginals: true, policies });
    const json = fl.chain("c-6", { contentClass: "j" }).recordPass('{"a":1,"b":2}', '{"a":1}', { density: 0.9 });
    expect(JSON.parse(json.output)).toEqual({
      a: 1,
      _ccr: `[Content compressed. Retrieve more: hash=${sha('{"a":1,"b":2}').slice(0, 24)}]`,
    });
    expect(json.receipt.is_parseable).toBe(true);
    const encoded = Buffer.from("some text here").toString("base64");
    expect(
      fl.chain("c-7", { contentClass: "b" }).recordPass(encoded, encoded.slice(0, 8), { density: 0.9 }).output,
    ).toBe(encoded.slice(0, 8));
  });

  it("takes the density from the shared measurement against the chain's source unless one is claimed", () => {
    const chain = new sdk.Floorline().chain("c-5");
    const source = "Build 4182 failed at 14:02 on host db-7: disk /var/lib/pg full (98%). Retry with --force.";
    const kept = "Build 4182 failed at 14:02 on host db-7: disk full.";
    const first = chain.recordPass(source, kept);
    expect(first.measured).toEqual(sdk.measure(kept, { source, format: "any", requiredFields: [] }));
    expect(first.receipt.semantic_density_score).toBe(first.measured.semantic_density_score);
    expect(first.measured.facts?.lost).toBeGreaterThan(0);
    const claimed = chain.recordPass(kept, "a build failed", { density: 0.95 });
    expect(claimed.receipt.semantic_density_score).toBe(0.95);
    expect(claimed.measured.semantic_density_score).toBeLessThan(first.measured.semantic_density_score);
  });
});

describe("resumed chains, content and clock", () => {
  it("numbers a resumed chain on from where it was, measuring against the source it is given", () => {
    const source = "Build 4182 failed at 14:02 on host db-7: disk /var/lib/pg full (98%). Retry with --force.";
    const kept = "Build 4182 failed at 14:02 on host db-7.";
    const chain = new sdk.Floorline().chain("r-1", { resumeAfter: 4, source });
    const fifth = chain.recordPass(kept, "Build 4182 failed.");
    expect(fifth.receipt).toMatchObject({ pass_id: "r-1.p5", pass_number: 5, input_content_hash: sha(kept) });
    expect(fifth.measured).toEqual(sdk.measure("Build 4182 failed.", { source, format: "any", requiredFields: [] }));
  });

  it("with sendContent, sends each output and the chain's source on its first pass", () => {
    const items: Array<{ path: string; body: unknown }> = [];
    const transport = {
      request: async (method: string, path: string, body?: unknown) => {
        if (method === "POST") items.push({ path, body });
        return null;
      },
    };
    const fl = new sdk.Floorline({ transport, sendContent: true, flushOnExit: false, policies: { default: loose } });
    const chain = fl.chain("s-1");
    const first = chain.recordPass("the source text, long enough", "the source text");
    const second = chain.recordPass("the source text", "source");
    expect(first.receipt).toMatchObject({ content: "the source text", input_content: "the source text, long enough" });
    expect(second.receipt.content).toBe("source");
    expect(second.receipt).not.toHaveProperty("input_content");
  });

  it("dates receipts by the clock it is given and delivers through the transport it is given", async () => {
    const bodies: unknown[] = [];
    const transport = {
      request: async (method: string, _path: string, body?: unknown) => {
        if (method === "POST") bodies.push(body);
        return null;
      },
    };
    let t = Date.parse("2026-01-01T00:00:00Z");
    const clock = () => {
      t += 60_000;
      return new Date(t);
    };
    const fl = new sdk.Floorline({ transport, clock, flushOnExit: false, policies: { default: loose } });
    const chain = fl.chain("k-1");
    chain.recordPass("a b c d e f", "a b c", { density: 0.9 });
    chain.recordPass("a b c", "a b", { density: 0.9 });
    await fl.close();
    expect(bodies).toEqual([
      {
        receipts: [
          expect.objectContaining({ pass_id: "k-1.p1", created_at: "2026-01-01T00:01:00.000Z" }),
          expect.objectContaining({ pass_id: "k-1.p2", created_at: "2026-01-01T00:02:00.000Z" }),
        ],
      },
    ]);
    expect(fl.stats.sent).toBe(2);
  });
});

describe("compressUntilFloor", () => {
  const halve = (s: string) => ({ output: s.slice(0, Math.ceil(s.length / 2)), density: 0.9 });

  it("proceeds while safe and halts where the guard says, keeping the last safe content", async () => {
    const chain = new sdk.Floorline({ policies: { default: { ...loose, min_size_bytes: 100 } } }).chain("u-1");
    const start = "z ".repeat(800);
    const outcome = await chain.compressUntilFloor(start, halve);
    // 1600 → 800 (pass 1) → 400 → 200 → 100 → 50: the fifth pass is under the floor.
    expect(outcome.passes.map((p) => p.verdict)).toEqual([
      "NO_RECURSIVE_COMPRESSION",
      "SAFE_TO_COMPRESS",
      "SAFE_TO_COMPRESS",
      "SAFE_TO_COMPRESS",
      "COLLAPSE_IMMINENT",
    ]);
    expect(outcome).toMatchObject({
      strategy: "halt",
      content: "z ".repeat(50),
      reason: "HALT: Size 50 < 100, next pass will collapse.",
    });
    expect(outcome.boundary).toEqual({ chain_id: "u-1", pass_number: 5, strategy: "halt", reason: outcome.reason });
  });

  it("restores the previous pass's output at a floor breach, naming that pass", async () => {
    const policy = { ...loose, format: "json" as const, required_fields: ["a"] };
    const chain = new sdk.Floorline({ policies: { j: policy } }).chain("u-2", { contentClass: "j" });
    const docs = [{ a: 1, b: 2, c: 3 }, { a: 1, b: 2 }, { b: 2 }];
    const outcome = await chain.compressUntilFloor(JSON.stringify({ a: 1, b: 2, c: 3, d: 4 }), (_s, n) => ({
      output: JSON.stringify(docs[n - 1]),
      density: 0.9,
    }));
    expect(outcome.strategy).toBe("restore");
    expect(outcome.content).toBe(JSON.stringify({ a: 1, b: 2 }));
    expect(outcome.boundary).toMatchObject({ pass_number: 3, strategy: "restore", restore_pass_id: "u-2.p2" });
  });

  it("accepts the loss when the caller says so, recording the floor it relaxed", async () => {
    const chain = new sdk.Floorline({ policies: { default: { ...loose, min_size_bytes: 100 } } }).chain("u-3");
    const outcome = await chain.compressUntilFloor("q ".repeat(400), halve, { onBreach: () => "accept_loss" });
    expect(outcome.content).toBe("q ".repeat(25));
    expect(outcome.boundary).toMatchObject({
      strategy: "accept_loss",
      relaxed_policy: { min_size_bytes: 100, min_semantic_density: 0.2, max_pass_number: 6 },
    });
  });

  it("stops without a boundary when the compressor stops shrinking", async () => {
    const chain = new sdk.Floorline().chain("u-4");
    const outcome = await chain.compressUntilFloor("same", (s) => ({ output: s, density: 1 }));
    expect(outcome).toMatchObject({ strategy: null, boundary: null, content: "same" });
  });
});
