// A chain measures every pass against one source: the source is analysed once and its analysis
// reused, while what each content brings (request ids, paths) is not kept from one measurement
// to the next. The answers themselves are held to the oracle (oracle.test.ts).
import { describe, expect, it } from "vitest";
import { clearMeasureCache, measure, measureStats } from "@/lib/measure/index";

const logLine = (pass: number, i: number) =>
  `2026-11-30T10:${String(pass % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z INFO api request id=r${pass}-${i} path=/orders/${pass * 97 + i} status=200 ms=${(i * 7) % 300}`;
const log = (pass: number) => Array.from({ length: 40 }, (_, i) => logLine(pass, i)).join("\n");

describe("the source's analysis", () => {
  it("is made once per source and reused by every pass measured against it", () => {
    clearMeasureCache();
    const source = log(0);
    const before = measureStats();
    const answers = [1, 2, 3, 4, 5].map((pass) => measure(log(pass), { source, format: "text" }));
    const after = measureStats();
    expect(after.sourcesAnalysed - before.sourcesAnalysed).toBe(1);
    expect(after.sourcesReused - before.sourcesReused).toBe(4);
    // A source equal in text, built anew, is the same source.
    measure(log(6), { source: log(0).slice(0), format: "text" });
    expect(measureStats().sourcesAnalysed - before.sourcesAnalysed).toBe(1);
    // Reusing it changes nothing: the same answer as from scratch.
    clearMeasureCache();
    expect(measure(log(5), { source, format: "text" })).toStrictEqual(answers[4]);
  });

  it("keeps the lexicon from growing with contents it will not see again", () => {
    clearMeasureCache();
    const source = log(0);
    measure(log(1), { source, format: "text" });
    const size = measureStats().lexiconSize;
    expect(size).toBeGreaterThan(0);
    for (let pass = 2; pass < 60; pass++) measure(log(pass), { source, format: "text" });
    expect(measureStats().lexiconSize).toBe(size);
  });

  it("takes in a token that a second content brings too", () => {
    clearMeasureCache();
    const source = log(0);
    measure(log(1), { source, format: "text" });
    const size = measureStats().lexiconSize;
    measure(`${log(2)}\nshared-token-77x`, { source, format: "text" });
    expect(measureStats().lexiconSize).toBe(size);
    measure(`${log(3)}\nshared-token-77x`, { source, format: "text" });
    expect(measureStats().lexiconSize).toBeGreaterThan(size);
  });
});
