// A chain's canaries: planted into the content, recorded on the next receipt, checked in every
// output recorded after, and a check of other text sent in place of an opaque pass's own.
import { describe, expect, it } from "vitest";
import { sdk } from "./load";

const loose = { min_size_bytes: 1, min_semantic_density: 0.01, max_pass_number: 50 };
const LOG = "2026-11-30T10:00:07Z INFO checkout started\n2026-11-30T10:00:12Z ERROR payment failed: ECONNRESET\n";

function chain(id = "canary-chain") {
  const fl = new sdk.Floorline({ policies: { logs: loose }, flushOnExit: false });
  return fl.chain(id, { contentClass: "logs" });
}

describe("canaries on a chain", () => {
  it("are planted from the chain id by default, as the module plants them", () => {
    const c = chain();
    const planted = c.plantCanaries(LOG);
    const expected = sdk.plantCanaries(LOG, { count: 4, seed: "canary-chain" });
    expect(planted).toBe(expected.content);
    expect(c.canaries).toEqual(expected.canaries);
    // A second planting continues the first: canaries 4 and 5 of the same seed.
    c.plantCanaries(planted, { count: 2 });
    expect(c.canaries.slice(4)).toEqual(
      sdk.plantCanaries(planted, { count: 2, seed: "canary-chain", start: 4 }).canaries,
    );
    expect(() => c.plantCanaries(LOG, { count: 11 })).toThrow(/at most 16/);
    const blobs = new sdk.Floorline({
      policies: { blob: { ...loose, format: "base64" } },
      flushOnExit: false,
    }).chain("b", { contentClass: "blob" });
    expect(() => blobs.plantCanaries("aGVsbG8=")).toThrow(/base64/);
  });

  it("ride on the next receipt, and every receipt after carries the check of its output", () => {
    const c = chain();
    const planted = c.plantCanaries(LOG);
    const [number, path] = c.canaries;
    const first = c.recordPass(
      planted,
      planted
        .split("\n")
        .filter((l) => l.includes("ERROR"))
        .join("\n"),
    );
    expect(first.receipt.canaries).toEqual(c.canaries);
    const error = c.canaries.find((k) => k.kind === "error");
    expect(first.receipt.canary_check).toEqual({
      surviving: c.canaries.filter((k) => first.output.includes(k.text)).map((k) => k.id),
      checked_text_bytes: Buffer.byteLength(first.output),
    });
    expect(first.canaryCheck?.surviving).toContain(error?.id);
    const second = c.recordPass(first.output, `kept ${number?.text} and ${path?.text}`);
    expect(second.receipt.canaries).toBeUndefined();
    expect(second.receipt.canary_check?.surviving).toEqual([number?.id, path?.id]);
  });

  it("send a check of the agent's next output in place of an opaque pass's", () => {
    const c = chain();
    c.plantCanaries(LOG);
    const [number] = c.canaries;
    const check = c.checkCanaries(`resuming from offset ${number?.text}`);
    const opaque = c.recordOpaquePass({ sizeBytes: 120, canaryCheck: check });
    expect(opaque.receipt.canaries).toHaveLength(4);
    expect(opaque.receipt.canary_check).toEqual({
      surviving: [number?.id],
      checked_text_bytes: check.checked_text_bytes,
    });
    expect(() => c.recordPass("a", "b", { canaryCheck: { surviving: "x" } as never })).toThrow(TypeError);
  });

  it("leave a chain that planted none without canary fields", () => {
    const c = chain("plain");
    const pass = c.recordPass("some input text", "some text");
    expect(pass.receipt.canary_check).toBeUndefined();
    expect(pass.canaryCheck).toBeNull();
  });
});
