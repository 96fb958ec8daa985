// The chain statuses are read by people in three places: the API reference (from the zod
// schemas' descriptions), the status table of docs/ingest.md and the badges. The table must
// say what the schema says, status for status, so a meaning changed in one is changed in both.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHAIN_STATUS_FILTERS, CHAIN_STATUS_MEANINGS, chainSummarySchema } from "@/lib/schemas/chains";
import { section } from "../support/markdown";

const table = section(readFileSync("docs/ingest.md", "utf8"), "## Chain statuses")
  .split("\n")
  .map((line) => /^\| `([a-z_]+)` \| (.+) \|$/.exec(line))
  .filter((m) => m !== null)
  .map((m) => [m[1], m[2]] as const);

describe("chain statuses", () => {
  it("are each in the docs' status table with the schema's meaning, in the same order", () => {
    expect(table.map(([status]) => status)).toEqual([...CHAIN_STATUS_FILTERS]);
    for (const [status, meaning] of table) expect(meaning, status).toBe(CHAIN_STATUS_MEANINGS[status as "healthy"]);
  });

  it("tell saves from failures in the API reference", () => {
    const statuses = chainSummarySchema.shape.statuses.description ?? "";
    expect(statuses).toContain(`\`guarded\`: ${CHAIN_STATUS_MEANINGS.guarded}`);
    expect(statuses).toContain(`\`collapsed\`: ${CHAIN_STATUS_MEANINGS.collapsed}`);
    // The old meaning of `collapsed` (any floor reached) is gone.
    expect(statuses).not.toMatch(/collapsed`?:? a floor breach or collapse imminent/);
  });
});
