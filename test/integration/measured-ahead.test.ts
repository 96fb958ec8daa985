// A batch's contents are measured before its transaction (db/ingest/judge-passes.ts
// measureAhead): the embedded database, which has one connection, answers other requests while
// a long measurement runs, and the transaction takes up a measurement made ahead only when its
// task is the very same.
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { BatchMeasurements } from "@/db/ingest/judge-passes";
import type { MeasureTask, MeasureTaskResult } from "@/lib/measure/pool";
import type { PassReceipt } from "@/lib/schemas/passes";
import { setUpTestDatabase } from "../support/database";
import { contentReceipt } from "./api-helpers";

setUpTestDatabase();

// About 640 KB of tokens seen once each, against a source of others: most of a second to measure.
const words = (shift: number, mod: number) =>
  Array.from({ length: 60_000 }, (_, i) => `x${i + shift}-y${i % mod}`).join(" ");

describe("measured ahead of the transaction", () => {
  it("leaves the database to other callers while a batch is measured", async () => {
    const receipts = [
      contentReceipt("ahead-1", 1, words(0, 97), { input_content: words(7, 89), content_class: "ahead" }),
    ] as PassReceipt[];
    const db = await getDb();
    let finished = false;
    const stored = ingestPasses(receipts).finally(() => {
      finished = true;
    });
    // Queries one after another until the ingest answers: on the embedded database a query waits
    // for any open transaction, so one that held its transaction while measuring lets none through.
    let answered = 0;
    while (!finished) {
      await db.execute(sql`select 1`);
      if (!finished) answered++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const { results } = await stored;
    expect(results[0]?.server_checks?.method).toBe("floorline-facts/4");
    expect(answered).toBeGreaterThanOrEqual(10);
  });

  it("takes up a measurement only for the very same task", () => {
    const made = new BatchMeasurements();
    const task: MeasureTask = {
      content: "disk full on /var at 03:12",
      source: "ERROR disk full on /var at 03:12; retried twice",
      format: "text",
      requiredFields: ["a"],
      facts: "states",
      originals: new Map([["0123456789ab", null]]),
    };
    const result = { unknownMarkers: [], cacheDropped: false } as unknown as MeasureTaskResult;
    made.put(3, task, result);
    expect(made.take(3, { ...task, originals: new Map([["0123456789ab", null]]) })).toBe(result);
    expect(made.take(4, task)).toBeUndefined();
    for (const changed of [
      { content: `${task.content}.` },
      { source: "another source" },
      { format: "json" as const },
      { requiredFields: ["b"] },
      { facts: "list" as const },
      { originals: new Map([["0123456789ab", "the original"]]) },
      { originals: new Map<string, string | null>() },
    ])
      expect(made.take(3, { ...task, ...changed }), JSON.stringify(changed)).toBeUndefined();
  });
});
