// Re-measuring a class (docs/measurement.md, "Re-measuring a class"): the passes whose chain has
// a kept source and whose content is a cached original are measured again by the method of the
// day; the answers are kept beside the passes' own, which do not change, and the report
// compares the two.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT } from "@/app/api/v1/policies/[content_class]/route";
import { getDb } from "@/db/index";
import { type RemeasureProgress, remeasureClass } from "@/db/queries/remeasure";
import { METHOD, measure } from "@/lib/measure/index";
import { col, queryRows } from "@/db/sql";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";
import { formatMarker, markerKey } from "@/lib/originals/marker";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, contentReceipt, post } from "./api-helpers";

setUpTestDatabase();

const { chains } = JSON.parse(readFileSync("test/fixtures/measurement/chains.json", "utf8"));
const notes = chains[0];
const CLASS = "remeasure-cc";
const MARKED = "remeasure-marked";

const storedAnswers = async () =>
  queryRows(
    await getDb(),
    sql`select p.pass_id, (p.server_checks->>'semantic_density_score')::float8 as own, r.method,
          r.semantic_density_score as again
        from passes p left join remeasurements r on r.pass_row_id = p.id
        where p.content_class = ${CLASS} order by p.pass_number`,
    { pass_id: col.text, own: col.number.nullable(), method: col.text.nullable(), again: col.number.nullable() },
  );

describe("re-measuring a class", () => {
  const faithful = notes.passes[0].content as string;
  const voided = notes.passes[4].content as string;
  const receipt = (n: number, content: string, extra: Record<string, unknown> = {}) =>
    contentReceipt("rm-1", n, content, { content_class: CLASS, cache_original: true, ...extra });

  it("measures again what it can, keeps the answers beside the passes' own, and compares them", async () => {
    const put = await call(
      PUT,
      jsonRequest(`/api/v1/policies/${CLASS}`, {
        method: "PUT",
        body: { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10 },
      }),
      params({ content_class: CLASS }),
    );
    expect(put.status, put.text).toBeLessThan(300);
    const stored = await post(postPasses, "/api/v1/passes", {
      receipts: [
        receipt(1, faithful, { input_content: notes.source }),
        receipt(2, voided),
        // Its content was sent but not cached: nothing to measure it from later.
        contentReceipt("rm-1", 3, `${voided} Nothing else.`, { content_class: CLASS }),
      ],
    });
    expect(stored.status, stored.text).toBe(201);
    // The void pass as an older method answered it: above the floor.
    await (await getDb()).execute(
      sql`update passes set server_checks = server_checks - 'method' || '{"semantic_density_score": 0.95}'::jsonb
          where pass_id = 'rm-1.p2'`,
    );

    const progress: RemeasureProgress[] = [];
    const report = await remeasureClass(await getDb(), CLASS, (p) => progress.push(p));

    const want = (content: string) => measure(content, { source: notes.source, format: "any" }).semantic_density_score;
    expect(report).toMatchObject({
      content_class: CLASS,
      method: METHOD,
      floor: 0.3,
      passes: 3,
      measurable: 2,
      measured: 2,
      failed: 0,
      fell_under_floor: 1,
      rose_above_floor: 0,
    });
    expect(report.median_after).toBe((want(faithful) + want(voided)) / 2);
    expect(report.largest_moves[0]).toMatchObject({
      pass_id: "rm-1.p2",
      before: { score: 0.95, method: null },
      after: want(voided),
    });
    expect(progress.at(-1)).toEqual({ done: 2, total: 2 });
    // Beside, not instead: each pass keeps its own answer.
    expect(await storedAnswers()).toEqual([
      { pass_id: "rm-1.p1", own: want(faithful), method: METHOD, again: want(faithful) },
      { pass_id: "rm-1.p2", own: 0.95, method: METHOD, again: want(voided) },
      { pass_id: "rm-1.p3", own: expect.any(Number), method: null, again: null },
    ]);
  });

  it("writes each pass's answer once per method, however often it runs", async () => {
    const again = await remeasureClass(await getDb(), CLASS);
    expect(again.measured).toBe(2);
    const [count] = await queryRows(await getDb(), sql`select count(*) as n from remeasurements`, { n: col.int });
    expect(count?.n).toBe(2);
  });

  it("measures again with the originals a content's markers name, as ingest does", async () => {
    // The void pass, and a marker to an original that states what it lost.
    const original = `${faithful}\n`;
    await storeOriginal({ original });
    const marked = `${voided}\n${formatMarker(markerKey(sha256Hex(original)))}`;
    const stored = await post(postPasses, "/api/v1/passes", {
      receipts: [
        contentReceipt("rm-mk", 1, faithful, {
          content_class: MARKED,
          cache_original: true,
          input_content: notes.source,
        }),
        contentReceipt("rm-mk", 2, marked, { content_class: MARKED, cache_original: true }),
      ],
    });
    expect(stored.status, stored.text).toBe(201);
    const own = stored.body.results[1].server_checks;
    expect(own.recoverable_examples.length, "the ingest read the marker's original").toBeGreaterThan(0);
    await remeasureClass(await getDb(), MARKED);
    const [row] = await queryRows(
      await getDb(),
      sql`select r.semantic_density_score as again, r.facts from passes p
          join remeasurements r on r.pass_row_id = p.id where p.pass_id = 'rm-mk.p2'`,
      { again: col.number, facts: col.json },
    );
    expect(row).toEqual({ again: own.semantic_density_score, facts: own.facts });
    expect(row?.again).not.toBe(measure(marked, { source: notes.source, format: "any" }).semantic_density_score);
  });

  it("answers a class with nothing to measure under the built-in policy", async () => {
    const empty = await remeasureClass(await getDb(), "no-such-class-here");
    expect(empty).toMatchObject({ passes: 0, measurable: 0, measured: 0, median_before: null, median_after: null });
    expect(empty.largest_moves).toEqual([]);
  });
});
