// Canaries planted as the content's format carries facts, the same each time from a seed, and
// survival as docs/canaries.md defines it (the canary's text present verbatim).
import { describe, expect, it } from "vitest";
import {
  CANARY_KINDS,
  type Canary,
  checkCanaries,
  detectPlantFormat,
  MAX_CANARIES,
  plantCanaries,
} from "@/lib/canaries/canaries";
import { canaryFindings, canaryPoints, type PlantedCanary, survivalOf } from "@/lib/canaries/survival";

const LOG = [
  "2026-11-30T10:00:07Z INFO checkout started for order 5521",
  "2026-11-30T10:00:09Z WARN gateway slow ms=900",
  "2026-11-30T10:00:12Z ERROR payment failed: ECONNRESET",
  "2026-11-30T10:00:15Z INFO retry queued",
].join("\n");
const TEXT =
  "The deploy of version 5.1 failed at noon. The scheduler leaked memory after 20000 jobs. Support rolled back.";
const ORDER = { id: "order-5521", status: "shipped", items: [{ sku: "SKU-4100", qty: 2 }] };

/** The document without the members the canaries added. */
function withoutCanaries(value: unknown, canaries: readonly Canary[]): unknown {
  const texts = new Set(canaries.map((c) => c.text));
  const planted = (v: unknown) =>
    typeof v === "number" || typeof v === "string" ? [...texts].some((t) => String(v).includes(t)) : false;
  if (Array.isArray(value)) return value.map((v) => withoutCanaries(v, canaries));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).filter(([, v]) => !planted(v)));
  return value;
}

describe("planting", () => {
  it("is the same for the same seed and start, and another for another seed", () => {
    const a = plantCanaries(TEXT, { count: 4, seed: "chain-1" });
    expect(plantCanaries(TEXT, { count: 4, seed: "chain-1" })).toEqual(a);
    expect(plantCanaries(TEXT, { count: 4, seed: "chain-2" }).canaries).not.toEqual(a.canaries);
    // Canary k of a seed is the same fact however many are planted with it.
    expect(plantCanaries(TEXT, { count: 2, seed: "chain-1", start: 2 }).canaries).toEqual(a.canaries.slice(2));
  });

  it("plants one canary of each kind in turn, each with a distinct id and text absent before", () => {
    const { canaries } = plantCanaries(TEXT, { count: 8, seed: "s" });
    expect(canaries.map((c) => c.kind)).toEqual([...CANARY_KINDS, ...CANARY_KINDS]);
    expect(new Set(canaries.map((c) => c.id)).size).toBe(8);
    for (const c of canaries) expect(TEXT.includes(c.text)).toBe(false);
    const [number, path, hash, error] = canaries;
    expect(number?.text).toMatch(/^[0-9]{6}$/);
    expect(path?.text).toMatch(/^\/[a-z/]+\/[a-z]+-[0-9a-f]{6}\.[a-z]+$/);
    expect(hash?.text).toMatch(/^[0-9a-f]{16}$/);
    expect(error?.text).toMatch(/^ERR_[A-Z]+_[0-9]{4}$/);
  });

  it("adds JSON members the document still parses with, leaving every other member as it was", () => {
    for (const doc of [
      JSON.stringify(ORDER),
      JSON.stringify(ORDER, null, 2),
      `${JSON.stringify(ORDER, null, "\t")}\n`,
      JSON.stringify([ORDER, { id: "order-5522" }, 7]),
      "{}",
      '{"a": "value with } and \\" inside"}',
    ]) {
      const planted = plantCanaries(doc, { count: 4, seed: "s" });
      expect(planted.format).toBe("json");
      const parsed = JSON.parse(planted.content);
      expect(withoutCanaries(parsed, planted.canaries)).toEqual(JSON.parse(doc));
      for (const c of planted.canaries) expect(planted.content).toContain(c.text);
    }
    // A pretty-printed object gets its members' indent.
    const pretty = plantCanaries(JSON.stringify(ORDER, null, 2), { count: 1, seed: "s" }).content;
    expect(pretty).toMatch(/\n {2}"[a-z_]+": [0-9]{6}\n\}$/);
  });

  it("refuses JSON with no object to hold a member, and content that is not JSON as JSON", () => {
    expect(() => plantCanaries("[1, 2, 3]", { count: 1, seed: "s" })).toThrow(/no field to carry a fact/);
    expect(() => plantCanaries("plain words", { count: 1, seed: "s", format: "json" })).toThrow(/does not parse/);
    expect(() => plantCanaries("x", { count: 0, seed: "s" })).toThrow(RangeError);
    expect(() => plantCanaries("x", { count: MAX_CANARIES + 1, seed: "s" })).toThrow(RangeError);
  });

  it("writes log lines with their neighbour's timestamp and level shape, error lines at error", () => {
    const planted = plantCanaries(LOG, { count: 8, seed: "s" });
    expect(planted.format).toBe("log");
    const lines = planted.content.split("\n");
    const before = new Set(LOG.split("\n"));
    const added = lines.filter((line) => !before.has(line));
    expect(added).toHaveLength(8);
    for (const line of added) {
      const i = lines.indexOf(line);
      const neighbour =
        lines
          .slice(0, i)
          .reverse()
          .find((l) => before.has(l)) ?? (lines[0] as string);
      // Same timestamp as the line above, a level word in the same place and case.
      expect(line.slice(0, 21)).toBe(neighbour.slice(0, 21));
      expect(line).toMatch(/^2026-11-30T10:00:[0-9]{2}Z (INFO|ERROR) \S/);
      expect(line.includes(" ERROR ")).toBe(line.includes(" ERR_"));
    }
    // Every original line is kept, in order.
    expect(lines.filter((l) => before.has(l))).toEqual(LOG.split("\n"));
    const bracketed = plantCanaries("[12:00:01] [warn] a\n[12:00:02] [warn] b\n", { count: 4, seed: "s" }).content;
    for (const line of bracketed.trimEnd().split("\n")) expect(line).toMatch(/^\[12:00:0[12]\] \[(warn|info|error)\] /);
  });

  it("writes sentences between sentences of text", () => {
    const planted = plantCanaries(TEXT, { count: 4, seed: "s" });
    expect(planted.format).toBe("text");
    for (const sentence of TEXT.split(". ")) expect(planted.content).toContain(sentence.replace(/\.$/, ""));
    expect(planted.content.match(/\. The |^The /g)?.length).toBeGreaterThanOrEqual(6);
    expect(plantCanaries("", { count: 1, seed: "s" }).content).toMatch(/^The [a-z ]+ is [0-9]{6}\.$/);
  });

  it("tells JSON, logs and text apart", () => {
    expect(detectPlantFormat(JSON.stringify(ORDER))).toBe("json");
    expect(detectPlantFormat(LOG)).toBe("log");
    expect(detectPlantFormat(TEXT)).toBe("text");
    expect(detectPlantFormat("{not json")).toBe("text");
  });
});

describe("survival", () => {
  it("is each canary's text present verbatim, and the bytes checked", () => {
    const { content, canaries } = plantCanaries(LOG, { count: 4, seed: "s" });
    expect(checkCanaries(content, canaries)).toEqual({
      surviving: canaries.map((c) => c.id),
      lost: [],
      checked_text_bytes: Buffer.byteLength(content),
    });
    const [a, b] = canaries as [Canary, Canary];
    const summary = `kept ${a.text}; ${b.text.toUpperCase()} is not ${b.text}`.replace(b.text, "x");
    const check = checkCanaries(summary, canaries);
    expect(check.surviving).toEqual([a.id]);
    expect(check.lost).toEqual(canaries.slice(1).map((c) => c.id));
    expect(checkCanaries("", canaries).surviving).toEqual([]);
  });
});

describe("survival on the server's passes", () => {
  const planted: PlantedCanary[] = plantCanaries(LOG, { count: 3, seed: "s" }).canaries.map((c, i) => ({
    ...c,
    pass_number: i === 2 ? 3 : 1,
  }));
  const [a, b, c] = planted as [PlantedCanary, PlantedCanary, PlantedCanary];

  it("counts only canaries planted by the pass, and takes a check over the content", () => {
    expect(survivalOf(planted, 1, { content: `${a.text} ${c.text}` })).toEqual({
      canaries_surviving: [a.id],
      canary_retention: 0.5,
    });
    expect(survivalOf(planted, 3, { content: a.text, check: { surviving: [b.id, c.id, "other"] } })).toEqual({
      canaries_surviving: [b.id, c.id],
      canary_retention: 2 / 3,
    });
    expect(survivalOf(planted, 2, {})).toBeNull();
    expect(survivalOf([], 2, { content: "x" })).toBeNull();
  });

  it("finds each canary lost once, again after it came back, and the first pass below the floor", () => {
    const pass = (n: number, surviving: string[] | null) => ({
      pass_id: `p${n}`,
      pass_number: n,
      canaries_surviving: surviving,
      canary_retention: surviving && surviving.length / (n >= 3 ? 3 : 2),
    });
    const findings = canaryFindings(
      [pass(1, [a.id, b.id]), pass(2, [a.id]), pass(3, null), pass(4, [a.id, b.id]), pass(5, [c.id]), pass(6, [])],
      planted,
      0.5,
    );
    expect(findings.map((f) => [f.pass_number, f.detail.split(" ")[1] ?? ""])).toEqual([
      [2, b.id],
      [4, c.id],
      [5, a.id],
      [5, b.id],
      [5, "retention"],
      [6, c.id],
    ]);
    expect(findings.every((f) => f.kind === "canary_lost")).toBe(true);
    expect(canaryFindings([pass(1, [a.id, b.id])], planted, null)).toEqual([]);
  });
});

describe("the canary line", () => {
  it("keeps each stretch's lowest retention, the first and the last past its limit", () => {
    const passes = Array.from({ length: 500 }, (_, i) => ({
      pass_id: `p${i + 1}`,
      pass_number: i + 1,
      surviving: i === 250 ? 0 : 4,
      retention: i === 250 ? 0 : 1,
    }));
    const points = canaryPoints(
      passes,
      [{ pass_number: 1 }, { pass_number: 1 }, { pass_number: 1 }, { pass_number: 1 }],
      50,
    );
    expect(points).toHaveLength(50);
    expect(points[0]?.pass_number).toBe(1);
    expect(points.at(-1)?.pass_number).toBe(500);
    expect(points.some((p) => p.pass_number === 251 && p.retention === 0)).toBe(true);
    expect(points.every((p) => p.planted === 4)).toBe(true);
  });
});
