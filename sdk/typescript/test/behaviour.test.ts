// The behaviours docs/sdk-behaviour.md promises, shared with the Python SDK (its
// tests/test_behaviour.py holds it to the same): which policy wins, the strategy at each
// verdict, pass ids, markers, and a TypeError that names the argument.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sdk } from "./load";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const loose = { min_size_bytes: 10, min_semantic_density: 0.2, max_pass_number: 6 };
const served = { content_class: "p", version: 3, min_size_bytes: 10, min_semantic_density: 0.35, max_pass_number: 8 };

/** A transport that answers the policy read with `policy` (404 without one) and takes every POST. */
function serving(policy: Record<string, unknown> | null) {
  const posts: Array<{ path: string; body: unknown }> = [];
  const transport = {
    request: async (method: string, path: string, body?: unknown) => {
      if (method === "GET") {
        if (policy) return policy;
        throw new sdk.FloorlineError(404, "not_found", "no policy");
      }
      posts.push({ path, body });
      return null;
    },
  };
  return { transport, posts };
}

describe("which policy wins", () => {
  it("a policy given in code wins over the server's", async () => {
    const given = { ...loose, min_semantic_density: 0.6 };
    const { transport } = serving(served);
    const fl = new sdk.Floorline({ transport, flushOnExit: false, policies: { p: given } });
    const chain = fl.chain("given-1", { contentClass: "p" });
    await chain.ready();
    expect(chain.policy).toMatchObject({ min_semantic_density: 0.6, max_pass_number: 6 });
    chain.recordPass("a ".repeat(100), "b ".repeat(90), { density: 0.9 });
    // 0.5 passes the server's 0.35 but not the 0.6 given in code.
    expect(chain.recordPass("b ".repeat(90), "c ".repeat(80), { density: 0.5 }).verdict).toBe("COLLAPSE_IMMINENT");
    await fl.close();
  });

  it("a policy given for one chain wins over the client's and the server's", async () => {
    const { transport } = serving(served);
    const fl = new sdk.Floorline({ transport, flushOnExit: false, policies: { p: loose } });
    const chain = fl.chain("given-2", { contentClass: "p", policy: { ...loose, max_pass_number: 2 } });
    await chain.ready();
    expect(chain.policy.max_pass_number).toBe(2);
    await fl.close();
  });

  it("the server's policy wins over the built-in default", async () => {
    const { transport } = serving(served);
    const fl = new sdk.Floorline({ transport, flushOnExit: false });
    const chain = fl.chain("served-1", { contentClass: "p" });
    expect(await chain.ready()).toMatchObject({ version: 3, min_semantic_density: 0.35 });
    await fl.close();
  });

  it("without either, the built-in default", async () => {
    const { transport } = serving(null);
    const fl = new sdk.Floorline({ transport, flushOnExit: false });
    const chain = fl.chain("default-1", { contentClass: "p" });
    expect(await chain.ready()).toMatchObject({ ...sdk.CONSERVATIVE_DEFAULT_POLICY, version: 0 });
    await fl.close();
  });

  it("ready() waits for the server at most policyWaitMs", async () => {
    const transport = { request: () => new Promise<never>(() => undefined) };
    const fl = new sdk.Floorline({ transport, flushOnExit: false, policyWaitMs: 100 });
    const started = Date.now();
    expect(await fl.chain("slow-1", { contentClass: "p" }).ready()).toMatchObject(sdk.CONSERVATIVE_DEFAULT_POLICY);
    expect(Date.now() - started).toBeLessThan(1_000);
    await fl.close({ timeoutMs: 0 });
  });
});

describe("the default strategy at each verdict", () => {
  const steps = (outputs: string[]) => (_s: string, n: number) => ({ output: outputs[n - 1] as string, density: 0.9 });

  it("COLLAPSE_IMMINENT halts on the previous output, whichever gate said it", async () => {
    const text = (n: number) => "w ".repeat(n);
    // Past the last pass.
    const fl = new sdk.Floorline({ policies: { a: { ...loose, max_pass_number: 3 } } });
    const past = await fl
      .chain("imminent-1", { contentClass: "a" })
      .compressUntilFloor(text(500), steps([text(400), text(300), text(200), text(100)]));
    expect(past).toMatchObject({ strategy: "halt", content: text(200), reason: "HALT: Pass 4 > 3, use previous." });
    // Too sparse: the density claimed falls under the floor.
    const sparse = await fl
      .chain("imminent-2", { contentClass: "a" })
      .compressUntilFloor(text(500), (_s, n) => ({ output: text(500 - n * 100), density: n < 3 ? 0.9 : 0.1 }));
    expect(sparse).toMatchObject({ strategy: "halt", content: text(300), reason: "HALT: Density 0.10 < 0.20." });
    expect(sparse.boundary).not.toHaveProperty("restore_pass_id");
  });

  it("FLOOR_BREACH_DETECTED restores the previous output, naming its pass", async () => {
    const policy = { ...loose, min_size_bytes: 1, format: "json" as const, required_fields: ["a"] };
    const fl = new sdk.Floorline({ policies: { j: policy } });
    const unparseable = await fl
      .chain("breach-1", { contentClass: "j" })
      .compressUntilFloor('{"a":1,"b":2,"c":3}', steps(['{"a":1,"b":2}', '{"a":1}', '{"a"']));
    expect(unparseable).toMatchObject({ strategy: "restore", content: '{"a":1}' });
    expect(unparseable.boundary).toMatchObject({ pass_number: 3, restore_pass_id: "breach-1.p2" });
  });

  it("after a restore, the next breach names the restored pass, not the breaching one", async () => {
    const fl = new sdk.Floorline({ policies: { j: { ...loose, min_size_bytes: 1, format: "json" as const } } });
    const chain = fl.chain("breach-2", { contentClass: "j" });
    const first = await chain.compressUntilFloor('{"a":1,"b":2,"c":3}', steps(['{"a":1,"b":2}', '{"a":1}', "{"]));
    expect(first.boundary?.restore_pass_id).toBe("breach-2.p2");
    const again = await chain.compressUntilFloor(first.content, () => ({ output: "[", density: 0.9 }));
    expect(again.boundary).toMatchObject({ pass_number: 4, strategy: "restore", restore_pass_id: "breach-2.p2" });
  });
});

describe("pass ids", () => {
  it("are <chain id>.p<n>, and the chain's hash stands in for a chain id too long to carry", () => {
    const fl = new sdk.Floorline({ policies: { default: loose } });
    expect(fl.chain("ids-1").recordPass("a b c", "a b", { density: 0.9 }).receipt.pass_id).toBe("ids-1.p1");
    const long = "c".repeat(254);
    const pass = fl.chain(long).recordPass("a b c", "a b", { density: 0.9 });
    expect(pass.receipt.pass_id).toBe(`${sha(long).slice(0, 24)}.p1`);
    expect(pass.receipt.chain_id).toBe(long);
  });

  it("continue on the same chain however often the agent asks for it", () => {
    const fl = new sdk.Floorline({ policies: { default: loose } });
    fl.chain("again").recordPass("a b c", "a b", { density: 0.9 });
    expect(fl.chain("again").recordPass("a b", "a", { density: 0.9 }).receipt.pass_id).toBe("again.p2");
    expect(() => fl.chain("again", { contentClass: "other" })).toThrow(RangeError);
  });
});

describe("markers", () => {
  const marker = (input: string) => `[Content compressed. Retrieve more: hash=${sha(input).slice(0, 24)}]`;

  it("go into JSON as it was written, a _ccr field or a last item, so it stays parseable", () => {
    const fl = new sdk.Floorline({ cacheOriginals: true, policies: { default: loose } });
    const input = '{"a": 1.50, "b": [1, 2]}';
    const object = fl.chain("m-1").recordPass(input, '{ "a": 1.50 }\n', { density: 0.9 });
    expect(object.output).toBe(`{ "a": 1.50 ,"_ccr":"${marker(input)}"}\n`);
    const array = fl.chain("m-2").recordPass(input, "[1.0, 2]", { density: 0.9 });
    expect(array.output).toBe(`[1.0, 2,"${marker(input)}"]`);
    const empty = fl.chain("m-3").recordPass(input, "{}", { density: 0.9 });
    expect(empty.output).toBe(`{"_ccr":"${marker(input)}"}`);
    const text = fl.chain("m-4").recordPass(input, "a: 1.5", { density: 0.9 });
    expect(text.output).toBe(`a: 1.5\n${marker(input)}`);
  });

  it("count items when the agent says how many, and the cached original carries the marker's key", async () => {
    const { transport, posts } = serving(null);
    const fl = new sdk.Floorline({ transport, flushOnExit: false, cacheOriginals: true, policies: { default: loose } });
    const input = "row 1\nrow 2\nrow 3\nrow 4";
    const pass = fl.chain("m-5").recordPass(input, "row 1", { density: 0.9, originalItems: 4, compressedItems: 1 });
    const key = sha(input).slice(0, 24);
    expect(pass.output).toBe(`row 1\n[4 items compressed to 1. Retrieve more: hash=${key}]`);
    expect(pass.receipt).not.toHaveProperty("metadata");
    await fl.close();
    expect(posts[0]).toEqual({
      path: "/api/v1/originals",
      body: {
        original: input,
        compressed: "row 1",
        hash: key,
        chain_id: "m-5",
        pass_id: "m-5.p1",
        original_items: 4,
        compressed_items: 1,
      },
    });
  });
});

describe("receipts", () => {
  it("carry the chain's metadata under each pass's own", () => {
    const fl = new sdk.Floorline({ policies: { default: loose } });
    const chain = fl.chain("meta-1", { metadata: { run: "r1", step: "chain" } });
    const pass = chain.recordPass("a b c", "a b", { density: 0.9, metadata: { step: "pass" } });
    expect(pass.receipt.metadata).toEqual({ run: "r1", step: "pass" });
  });

  it("may have no input: no input hash, no original, measured on its own", () => {
    const fl = new sdk.Floorline({ cacheOriginals: true, policies: { default: loose } });
    const pass = fl.chain("no-input").recordPass(null, "Build 4182 failed at 14:02 on db-7.");
    expect(pass.receipt).not.toHaveProperty("input_content_hash");
    expect(pass.output).toBe("Build 4182 failed at 14:02 on db-7.");
    expect(pass.measured).toEqual(sdk.measure(pass.output, { format: "any", requiredFields: [] }));
  });

  it("an unparseable output is not schema-valid either", () => {
    const fl = new sdk.Floorline({ policies: { j: { ...loose, format: "json" as const } } });
    const chain = fl.chain("schema-1", { contentClass: "j" });
    chain.recordPass("{}", "{}");
    expect(chain.recordPass("{}", "{").receipt).toMatchObject({ is_parseable: false, schema_valid: false });
  });
});

describe("wrong arguments", () => {
  const fl = new sdk.Floorline({ policies: { default: loose } });
  const chain = fl.chain("args");
  const call = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
    return "no error";
  };

  it("get a TypeError naming the argument and what it was", () => {
    expect(call(() => chain.recordPass("in", 42 as never))).toBe(
      "TypeError: recordPass: output must be a string, not number",
    );
    expect(call(() => chain.recordPass({} as never, "out"))).toBe(
      "TypeError: recordPass: input must be a string or null, not object",
    );
    expect(call(() => chain.recordPass("in", "out", { density: "0.9" as never }))).toBe(
      "TypeError: recordPass: density must be a number, not string",
    );
    expect(call(() => chain.recordPass("in", "out", { metadata: [] as never }))).toBe(
      "TypeError: recordPass: metadata must be an object, not array",
    );
    expect(call(() => fl.chain(7 as never))).toBe("TypeError: chain: chainId must be a string, not number");
    expect(call(() => fl.distill("nodes" as never))).toBe("TypeError: distill: nodes must be an array, not string");
  });

  it("get a RangeError for a value of the right type out of its range", () => {
    expect(call(() => chain.recordPass("in", "out", { density: 1.5 }))).toBe(
      "RangeError: recordPass: density must be from 0 to 1, not 1.5",
    );
    expect(call(() => fl.chain(""))).toBe("RangeError: chain: chainId must be 1 to 256 characters, not 0");
    expect(call(() => chain.recordBoundary({ pass_number: 1, strategy: "shrug" as never, reason: "x" }))).toBe(
      'RangeError: recordBoundary: strategy must be "halt", "restore" or "accept_loss", not "shrug"',
    );
  });

  it("get a parent trace id checked like a trace id", () => {
    const nodes = [{ node_id: "n1", node_type: "EXPLORATORY_CHATTER" as const, content: "again" }];
    expect(call(() => fl.distill(nodes, { parentTraceId: "" }))).toBe(
      "RangeError: distill: parentTraceId must be 1 to 256 characters, not 0",
    );
    expect(call(() => fl.distill(nodes, { parentTraceId: 7 as never }))).toBe(
      "TypeError: distill: parentTraceId must be a string, not number",
    );
    expect(call(() => fl.distill(nodes, { traceId: "same", parentTraceId: "same" }))).toBe(
      "RangeError: distill: parentTraceId cannot be the trace's own id",
    );
  });

  it("compressUntilFloor rejects a strategy it does not know", async () => {
    const outcome = fl
      .chain("args-2")
      .compressUntilFloor("x ".repeat(10), (s) => ({ output: s.slice(0, s.length / 2), density: 0.9 }), {
        onBreach: () => "shrug" as never,
      });
    await expect(outcome).rejects.toThrow(RangeError);
  });
});

describe("distilled traces", () => {
  it("are named by their nodes, whatever the order of each node's fields", () => {
    const fl = new sdk.Floorline();
    const a = fl.distill([
      { node_id: "n1", node_type: "VERIFIED_CONCLUSION", content: "it holds", verification_receipt: "r1" },
    ]);
    const b = fl.distill([
      { verification_receipt: "r1", content: "it holds", node_type: "VERIFIED_CONCLUSION", node_id: "n1" },
    ]);
    expect(a.trace_id).toBe(b.trace_id);
    // json.dumps(nodes, sort_keys=True) in Python: the same id from either SDK.
    const canonical =
      '[{"content": "it holds", "node_id": "n1", "node_type": "VERIFIED_CONCLUSION", "verification_receipt": "r1"}]';
    expect(a.trace_id).toBe(`trace-${sha(canonical).slice(0, 24)}`);
  });
});
