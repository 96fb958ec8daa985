// The evaluate byte path's large batches: evaluated in two halves, the first on another
// thread, and read while they arrive. The answer must be the one-thread answer, byte for byte,
// whatever the other thread does.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateBatch, evaluateBatchBytes } from "@/lib/guard/batch/evaluate";
import { ArrivingBatch, evaluateInHalves, type OtherThread, splitBatch } from "@/lib/guard/batch/halves";
import { MAX_EVALUATE_BATCH } from "@/lib/schemas/guard";
import { SMALL_EVALUATE_ITEM } from "../support/evaluate-item";
import { asciiJson, batch, corrupt, itemsHoldingCuts, unit, validItem, writer } from "../support/evaluate-batch";

// The second half evaluated in this thread: the same code the worker thread runs.
const here: OtherThread = { ready: () => true, evaluate: async (half) => evaluateBatch(half) };

/** Other threads that give no answer: never ready (asked() counts what it was asked anyway), failing, empty. */
function unhelpfulThreads() {
  let asked = 0;
  const notReady: OtherThread = {
    ready: () => false,
    evaluate: async (half) => {
      asked++;
      return evaluateBatch(half);
    },
  };
  const failing: OtherThread = { ready: () => true, evaluate: () => Promise.reject(new Error("worker gone")) };
  const empty: OtherThread = { ready: () => true, evaluate: async () => null };
  return { notReady, failing, empty, asked: () => asked };
}

describe("evaluateInHalves", () => {
  /** The halves' answer, which must be the whole body's; answers whether the halves were used. */
  async function expectSameAsWhole(text: string, second: OtherThread = here): Promise<boolean> {
    const body = Buffer.from(text, "utf8");
    const halves = await evaluateInHalves(body, second, 0);
    const whole = evaluateBatchBytes(body);
    expect(halves?.bytes.toString("utf8") ?? null).toBe(whole?.toString("utf8") ?? null);
    return halves?.split ?? false;
  }

  it("answers what the whole batch answers, for any batch written any way, corrupted or not", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(batch, fc.integer(), fc.integer(), fc.boolean(), async (items, s1, s2, spoil) => {
        const text = writer(s1).value(items);
        if (await expectSameAsWhole(spoil ? corrupt(text, s2) : text)) split++;
      }),
      { numRuns: 3_000 },
    );
    // Some of these are cut and answered from their halves (most are one item, spaced or spoilt).
    expect(split).toBeGreaterThan(20);
  });

  it("answers compact batches from their halves, as clients write them", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(validItem, { minLength: 2, maxLength: 8 }), async (items) => {
        // JSON.stringify's spelling, non-ASCII escaped as Python's json.dumps writes it.
        if (await expectSameAsWhole(JSON.stringify(items).replace(/[^\p{ASCII}]/gu, unit))) split++;
      }),
      { numRuns: 1_000 },
    );
    expect(split).toBeGreaterThan(500);
  });

  it("uses no half cut inside a string, wherever the cut falls", async () => {
    for (let n = 2; n <= 9; n++) {
      const items = itemsHoldingCuts(n);
      await expectSameAsWhole(JSON.stringify(items));
      await expectSameAsWhole(JSON.stringify(items, null, 1));
    }
  });

  it("cuts between two items, and each half is a batch", () => {
    const item = (i: number) =>
      `{"pass":{"pass_id":"p${i}","pass_number":${i},"current_content_hash":"h","current_size_bytes":1,"is_parseable":true,"schema_valid":true,"semantic_density_score":0.5},"policy":{"min_size_bytes":1,"min_semantic_density":0.2,"max_pass_number":4}}`;
    const body = `[${Array.from({ length: 10 }, (_, i) => item(i)).join(",")}]`;
    const [a, b] = splitBatch(Buffer.from(body)) ?? [];
    expect(a?.toString()).toBe(`[${Array.from({ length: 6 }, (_, i) => item(i)).join(",")}]`);
    expect(b?.toString()).toBe(`[${Array.from({ length: 4 }, (_, i) => item(i + 6)).join(",")}]`);
    expect(splitBatch(Buffer.from(`[${item(0)}]`))).toBeNull();
  });

  it("evaluates the whole batch here when the other thread is not ready, fails or answers nothing", async () => {
    const text = JSON.stringify(
      Array.from({ length: 40 }, (_, i) => ({
        pass: {
          pass_id: `p${i}`,
          pass_number: i % 9,
          current_content_hash: "sha256:ab",
          current_size_bytes: 100 * i,
          is_parseable: true,
          schema_valid: i % 7 !== 0,
          semantic_density_score: (i % 10) / 10,
        },
        policy: { min_size_bytes: 256, min_semantic_density: 0.3, max_pass_number: 6 },
      })),
    );
    const { notReady, failing, empty, asked } = unhelpfulThreads();
    expect(await expectSameAsWhole(text)).toBe(true);
    for (const second of [notReady, failing, empty]) expect(await expectSameAsWhole(text, second)).toBe(false);
    expect(asked()).toBe(0);
    // Below the size worth a second thread, the batch stays whole.
    expect((await evaluateInHalves(Buffer.from(text), here))?.split).toBe(false);
  });

  it("refuses a batch over the limit even when each half is under it", async () => {
    const one = JSON.stringify(SMALL_EVALUATE_ITEM);
    const over = Buffer.from(`[${Array.from({ length: MAX_EVALUATE_BATCH + 1 }, () => one).join(",")}]`);
    const [a, b] = splitBatch(over) ?? [];
    expect(a && evaluateBatch(a)).not.toBeNull();
    expect(b && evaluateBatch(b)).not.toBeNull();
    expect(await evaluateInHalves(over, here, 0)).toBeNull();
    const full = Buffer.from(`[${Array.from({ length: MAX_EVALUATE_BATCH }, () => one).join(",")}]`);
    expect((await evaluateInHalves(full, here, 0))?.split).toBe(true);
  });
});

describe("ArrivingBatch", () => {
  /** The body in chunks cut at `cuts` (fractions), fed as they would arrive. */
  async function arriving(text: string, cuts: number[], second: OtherThread = here, declared?: number) {
    const body = Buffer.from(text, "utf8");
    const batch = new ArrivingBatch(declared ?? body.byteLength, second, 0);
    let from = 0;
    for (const cut of [...cuts.sort(), 1]) {
      const to = Math.floor(cut * body.byteLength);
      if (to > from) batch.take(body.subarray(from, to));
      from = Math.max(from, to);
    }
    return batch.finish(body);
  }

  /** Its answer, which must be the whole body's; answers whether the parts were used. */
  async function expectSameAsWhole(text: string, cuts: number[], second: OtherThread = here): Promise<boolean> {
    const answer = await arriving(text, cuts, second);
    expect(answer?.bytes.toString("utf8") ?? null).toBe(
      evaluateBatchBytes(Buffer.from(text))?.toString("utf8") ?? null,
    );
    return answer?.split ?? false;
  }

  const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

  it("answers what the whole batch answers, however it arrives, for any batch, corrupted or not", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(batch, cuts, fc.integer(), fc.integer(), fc.boolean(), async (items, at, s1, s2, spoil) => {
        const text = writer(s1).value(items);
        if (await expectSameAsWhole(spoil ? corrupt(text, s2) : text, at)) split++;
      }),
      { numRuns: 3_000 },
    );
    expect(split).toBeGreaterThan(20);
  });

  it("answers compact batches from their two parts, as clients write them", async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(validItem, { minLength: 2, maxLength: 8 }), cuts, async (items, at) => {
        if (await expectSameAsWhole(asciiJson(JSON.stringify(items)), at)) split++;
      }),
      { numRuns: 1_000 },
    );
    expect(split).toBeGreaterThan(300);
  });

  it("uses no cut inside a string, wherever the chunks end", async () => {
    for (let n = 2; n <= 7; n++) {
      const items = itemsHoldingCuts(n);
      for (let k = 1; k < 40; k++) await expectSameAsWhole(JSON.stringify(items), [k / 40]);
    }
  });

  it("sends the items received so far to the other thread, and evaluates the rest here", async () => {
    const text = JSON.stringify(
      Array.from({ length: 10 }, (_, i) => ({
        ...SMALL_EVALUATE_ITEM,
        pass: { ...SMALL_EVALUATE_ITEM.pass, pass_id: `p${i}` },
      })),
    );
    const sent: string[] = [];
    const recording: OtherThread = {
      ready: () => true,
      evaluate: async (part) => {
        sent.push(part.toString());
        return evaluateBatch(part);
      },
    };
    // The first chunk ends inside the seventh item: six items go.
    const seventh = text.indexOf('"p6"');
    expect((await arriving(text, [seventh / text.length], recording))?.split).toBe(true);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0] as string)).toEqual(JSON.parse(text).slice(0, 6));
  });

  it("evaluates the batch here when the length is unknown or the other thread is not ready, fails or answers nothing", async () => {
    const text = JSON.stringify(Array.from({ length: 12 }, () => SMALL_EVALUATE_ITEM));
    const { notReady, failing, empty, asked } = unhelpfulThreads();
    // One that throws while the body is being read: the reading goes on, and the batch is whole.
    let throws = 0;
    const throwing: OtherThread = {
      ready: () => {
        if (throws++ === 0) throw new Error("no thread");
        return false;
      },
      evaluate: async () => null,
    };
    for (const second of [notReady, failing, empty, throwing]) {
      expect(await expectSameAsWhole(text, [0.6], second)).toBe(false);
    }
    expect(throws).toBe(2);
    expect(asked()).toBe(0);
    // With no declared length, the batch is cut in halves once whole, as evaluateInHalves cuts it.
    expect((await arriving(text, [0.6], here, Number.NaN))?.split).toBe(true);
    // Below the size worth a second thread, it stays whole.
    const small = new ArrivingBatch(text.length, here);
    small.take(Buffer.from(text));
    expect((await small.finish(Buffer.from(text)))?.split).toBe(false);
  });

  it("refuses a batch over the limit even when each part is under it", async () => {
    const one = JSON.stringify(SMALL_EVALUATE_ITEM);
    const over = `[${Array.from({ length: MAX_EVALUATE_BATCH + 1 }, () => one).join(",")}]`;
    expect(await arriving(over, [0.5])).toBeNull();
    const full = `[${Array.from({ length: MAX_EVALUATE_BATCH }, () => one).join(",")}]`;
    expect((await arriving(full, [0.5]))?.split).toBe(true);
  });
});
