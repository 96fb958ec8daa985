// The measurement pool's runs (lib/measure/pool.ts measureAllForIngest): a batch's measurements
// cross to the worker threads several to a task, each still with a budget of its own, so one
// that runs past it fails alone and the others of its run are answered as if measured apart.
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { measureDetailed } from "@/lib/measure/index";
import { measureAllForIngest, measureOffThread, type MeasureTask } from "@/lib/measure/pool";

const { chains } = JSON.parse(readFileSync("test/fixtures/measurement/chains.json", "utf8"));
const notes = chains[0] as { source: string; passes: { content: string }[] };

/** Text of n distinct words, about 11 bytes each: what costs a measurement most per byte. */
const distinctWords = (n: number) => Array.from({ length: n }, (_, i) => `w${i} ${i % 7 ? "and" : "Server"}`).join(" ");

afterEach(() => {
  delete process.env.FLOORLINE_MEASURE_BUDGET_MS;
});

describe("measureAllForIngest", () => {
  it("answers each task in order, as measured apart, sources crossing once per run", async () => {
    const tasks: MeasureTask[] = Array.from({ length: 30 }, (_, i) => ({
      content: (notes.passes[i % notes.passes.length] as { content: string }).content,
      source: i % 3 === 0 ? null : notes.source,
      format: "text",
      facts: i % 2 === 0 ? "states" : "list",
    }));
    const results = await measureAllForIngest(tasks);
    expect(results).toHaveLength(tasks.length);
    for (const [i, task] of tasks.entries()) {
      const result = results[i];
      if (result === "failed" || result === undefined) throw new Error(`task ${i} failed`);
      expect(result.measurement).toEqual(measureDetailed(task.content, { source: task.source, format: "text" }));
      // The ledger's states come only with a source, and the list only when asked for.
      expect(result.facts === undefined).toBe(task.source == null);
      if (task.source != null) expect(result.facts?.list === undefined).toBe(task.facts === "states");
    }
  });

  it("fails only the measurement past its budget; those before and after it in its run are answered", async () => {
    // Small contents cost a few ms; the heavy one (under 1 MiB, so in a run with others) some
    // hundreds of ms: far past a budget of 150 ms, which the small ones stay far inside.
    process.env.FLOORLINE_MEASURE_BUDGET_MS = "150";
    const heavy = distinctWords(80_000);
    const tasks: MeasureTask[] = Array.from({ length: 24 }, (_, i) => ({
      content: i === 10 ? heavy : (notes.passes[i % notes.passes.length] as { content: string }).content,
      source: notes.source,
      format: "text",
    }));
    const results = await measureAllForIngest(tasks);
    expect(results[10]).toBe("failed");
    for (const [i, task] of tasks.entries()) {
      if (i === 10) continue;
      const result = results[i];
      if (result === "failed" || result === undefined) throw new Error(`task ${i} failed`);
      expect(result.measurement).toEqual(measureDetailed(task.content, { source: task.source, format: "text" }));
    }
  });
});

/** The nice value of each thread of this process (Linux: the 19th field of its stat). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // After "pid (name) ": the state is field 3, so field 19 is the 17th.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}

describe("the measurement threads", () => {
  it.runIf(process.platform === "linux")("run at the lowest priority, the caller's thread at its own", async () => {
    const own = getPriority();
    await measureOffThread({ content: "disk 91% full on db-1", source: "db-1 disk at 91%", format: "text" });
    // The pool keeps its threads for a while after a measurement: they are among this process's.
    expect(threadNices()).toContain(Math.min(19, own + 19));
    expect(getPriority()).toBe(own);
  });
});
