// GET /api/v1/policies/{content_class}/recommendation against a real database, fed through
// the ingest endpoints. The class is the hand-worked one of test/unit/recommend.test.ts
// (the working is there), plus a restore boundary and a chain of another class.
import { describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { GET as getRecommendation } from "@/app/api/v1/policies/[content_class]/recommendation/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, post } from "./api-helpers";
import { getChainFailure } from "@/db/queries/recommendation";

setUpTestDatabase();

const SIZES = [1000, 800, 600];

/** Passes 1..3 with pass 2 at `density`; `broken` makes pass 3 unparseable. */
function chain(
  id: string,
  density: number,
  opts: { broken?: boolean; brokenAt2?: boolean; contentClass?: string } = {},
) {
  return [0.95, density, 0.95].map((d, i) => ({
    chain_id: id,
    pass_id: `${id}.p${i + 1}`,
    pass_number: i + 1,
    current_content_hash: `${id}:${i + 1}`,
    current_size_bytes: SIZES[i],
    is_parseable: !((opts.broken && i === 2) || (opts.brokenAt2 && i === 1)),
    schema_valid: true,
    semantic_density_score: d,
    content_class: opts.contentClass ?? "tool-json",
  }));
}

const recommendation = (contentClass: string) =>
  call(
    getRecommendation,
    jsonRequest(`/api/v1/policies/${encodeURIComponent(contentClass)}/recommendation`),
    params({ content_class: contentClass }),
  );

async function ingest(receipts: unknown[]) {
  const answer = await post(postPasses, "/api/v1/passes", { receipts });
  expect(answer.status, answer.text).toBe(201);
}

describe("floor recommendation", () => {
  it("answers 422 not_enough_data below ten recorded chains, saying how many there are", async () => {
    await ingest([...chain("few-1", 0.4, { broken: true }), ...chain("few-2", 0.9)]);
    const before = await countRows();
    const answer = await recommendation("tool-json");
    const error = expectErrorWithExtra(answer, "not_enough_data");
    expect(error.message).toMatch(/2 recorded chain\(s\).*at least 10/);
    expect(error.chains).toBe(2);
    expect(error.minimum).toBe(10);
    expect(await countRows()).toEqual(before);
    // A class never seen has none.
    expect(expectErrorWithExtra(await recommendation("never-seen"), "not_enough_data").chains).toBe(0);
  });

  it("recommends strict, balanced and lenient floors from the recorded chains", async () => {
    const put = await call(
      putPolicy,
      jsonRequest("/api/v1/policies/tool-json", {
        method: "PUT",
        body: { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 },
      }),
      params({ content_class: "tool-json" }),
    );
    expect(put.status).toBe(201);
    // The chains of the first test count here too: few-1 fails after 0.4, few-2 is healthy at 0.9.
    await ingest([
      ...chain("f-035", 0.35, { broken: true }),
      ...chain("f-055a", 0.55, { broken: true }),
      ...chain("f-055b", 0.55, { broken: true }),
      ...chain("f-uncatchable", 0.95, { brokenAt2: true }),
      ...chain("h-05", 0.5),
      ...chain("h-07a", 0.7),
      ...chain("h-07b", 0.7),
      ...["1", "2", "3", "4", "5", "6"].flatMap((n) => chain(`h-09-${n}`, 0.9)),
      // Another class's chain changes nothing here.
      ...chain("other", 0.1, { broken: true, contentClass: "other" }),
    ]);
    // f-075 fails through a restore boundary at pass 3 rather than a broken pass.
    await ingest(chain("f-075", 0.75));
    const boundary = await post(postBoundaries, "/api/v1/boundaries", {
      chain_id: "f-075",
      pass_number: 3,
      strategy: "restore",
      reason: "pass 3 lost the items",
      restore_pass_id: "f-075.p2",
    });
    expect(boundary.status, boundary.text).toBe(201);

    // Failing: f-035, few-1 (0.4), f-055a, f-055b, f-075, f-uncatchable (at pass 2). Healthy:
    // h-05, h-07a, h-07b, and seven at 0.9. A density floor D stops pass 2 when d < D:
    //   (0.4, 0.5]:   catches 2, halts 0          <- lenient: 0.5, the only tenth in there
    //   (0.55, 0.7]:  catches 4, halts 1 (score 3) <- balanced: 0.6
    //   (0.75, 0.9]:  catches 5, halts 3          <- strict: 0.8
    // Each halted chain keeps 200 of its 400 bytes; ten healthy chains saved 4000.
    const answer = await recommendation("tool-json");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      content_class: "tool-json",
      based_on: { chains: 16, healthy: 10, guarded: 0, failures: 6, passes: 48 },
      current: {
        version: 1,
        policy: { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 },
        failures_caught: 0,
        failures_missed: 6,
        healthy_halted_early: 0,
        compression_kept: 1,
      },
      options: [
        {
          name: "strict",
          policy: { min_size_bytes: 100, min_semantic_density: 0.8, max_pass_number: 10 },
          failures_caught: 5,
          failures_missed: 1,
          healthy_halted_early: 3,
          compression_kept: 3400 / 4000,
        },
        {
          name: "balanced",
          policy: { min_size_bytes: 100, min_semantic_density: 0.6, max_pass_number: 10 },
          failures_caught: 4,
          failures_missed: 2,
          healthy_halted_early: 1,
          compression_kept: 3800 / 4000,
        },
        {
          name: "lenient",
          policy: { min_size_bytes: 100, min_semantic_density: 0.5, max_pass_number: 10 },
          failures_caught: 2,
          failures_missed: 4,
          healthy_halted_early: 0,
          compression_kept: 1,
        },
      ],
    });
  });

  it("counts a chain the guard saved as a save, not a failure, and gives it no failure to show", async () => {
    const floor = { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 };
    const put = await call(
      putPolicy,
      jsonRequest("/api/v1/policies/saves", { method: "PUT", body: floor }),
      params({ content_class: "saves" }),
    );
    expect(put.status).toBe(201);
    // Both break at pass 3 (unparseable: FLOOR_BREACH_DETECTED). One agent restores pass 2 at
    // that floor; the other goes on from the broken output.
    const saved = chain("sv-saved", 0.35, { broken: true, contentClass: "saves" });
    const failed = [
      ...chain("sv-failed", 0.35, { broken: true, contentClass: "saves" }),
      { ...chain("sv-failed", 0.35, { contentClass: "saves" })[2], pass_id: "sv-failed.p4", pass_number: 4 },
    ];
    const healthy = ["1", "2", "3", "4", "5", "6", "7", "8"].flatMap((n) =>
      chain(`sv-h-${n}`, 0.9, { contentClass: "saves" }),
    );
    await ingest([...saved, ...failed, ...healthy]);
    const boundary = await post(postBoundaries, "/api/v1/boundaries", {
      chain_id: "sv-saved",
      pass_number: 3,
      strategy: "restore",
      reason: "HALT: unparseable",
      restore_pass_id: "sv-saved.p2",
    });
    expect(boundary.status, boundary.text).toBe(201);

    const answer = await recommendation("saves");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.based_on).toEqual({ chains: 10, healthy: 8, guarded: 1, failures: 1, passes: 31 });
    expect(answer.body.current).toMatchObject({ failures_caught: 0, failures_missed: 1 });
    // The floor that catches the failure at pass 2 (density over 0.35) stops the save there too,
    // before the floor the guard stopped it at: halted early.
    const strict = answer.body.options.find((o: { name: string }) => o.name === "strict");
    expect(strict).toMatchObject({ failures_caught: 1, healthy_halted_early: 1 });
    expect(await getChainFailure("sv-saved", "saves")).toBeNull();
    expect(await getChainFailure("sv-failed", "saves")).toBe(3);
  });

  it("keeps a floor save's note with its version; a note alone is no change", async () => {
    const put = (body: Record<string, unknown>) =>
      call(
        putPolicy,
        jsonRequest("/api/v1/policies/noted", { method: "PUT", body }),
        params({ content_class: "noted" }),
      );
    const floor = { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 };
    const first = await put({ ...floor, note: "First floor for this tool." });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ version: 1, note: "First floor for this tool." });
    const same = await put({ ...floor, note: "Saying it again." });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ version: 1, note: "First floor for this tool." });
    const second = await put({ ...floor, min_semantic_density: 0.5 });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ version: 2, note: null });
    expectError(await put({ ...floor, note: "x".repeat(2049) }), 422, "validation_failed");
  });

  it("refuses a content class that is not valid with the contract's 422", async () => {
    expectError(await recommendation(" "), 422, "validation_failed");
  });
});

/** The contract's error body, plus the extra fields this error carries. */
function expectErrorWithExtra(answer: Awaited<ReturnType<typeof recommendation>>, code: string) {
  expect(answer.status, answer.text).toBe(422);
  expect(answer.body.error.code).toBe(code);
  expect(typeof answer.body.error.message).toBe("string");
  return answer.body.error;
}
