// A semantic void the agent's claim hid: the spec posts its own chain (the demo's chains are
// not relied on), whose later passes claim density 0.9 but are filler. The chain page draws the
// measured density beside the claimed one with the floor, marks the passes where they
// disagree, and the pass panel lists the facts the pass lost; the chains list filters on it.
import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";

const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const CHAIN = `e2e-void-${RUN}`;
const CLASS = `e2e-measured-${RUN}`;
const SOURCE =
  "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB, a --dry-run flag for migrate and Postgres 17 support. Fixes #4412 and #4398; /v1/export is removed.";
const FILLER = [
  "The document discusses various topics. The update brings several changes.",
  "The document discusses various topics.",
];
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function receipt(passNumber: number, content: string, extra: Record<string, unknown> = {}) {
  return {
    chain_id: CHAIN,
    pass_id: `${CHAIN}.p${passNumber}`,
    pass_number: passNumber,
    input_content_hash: passNumber === 1 ? sha256(SOURCE) : undefined,
    current_content_hash: sha256(content),
    current_size_bytes: Buffer.byteLength(content),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    content_class: CLASS,
    content,
    ...extra,
  };
}

test.beforeAll(async ({ request }) => {
  const policy = await request.put(`/api/v1/policies/${CLASS}`, {
    data: { min_size_bytes: 0, min_semantic_density: 0.3, max_pass_number: 10, density_source: "measured" },
  });
  expect(policy.status(), await policy.text()).toBeLessThan(300);
  const passes = await request.post("/api/v1/passes", {
    data: {
      receipts: [
        receipt(1, SOURCE, { input_content: SOURCE }),
        receipt(2, FILLER[0] as string, { input_content_hash: sha256(SOURCE) }),
        receipt(3, FILLER[1] as string, { input_content_hash: sha256(FILLER[0] as string) }),
      ],
    },
  });
  expect(passes.status(), await passes.text()).toBe(201);
  const { results } = await passes.json();
  // The claims pass the floor; the measurement does not.
  expect(results[1].verdict).toBe("SAFE_TO_COMPRESS");
  expect(results[1].measurement_mismatch).toBe(true);
});

test("the chain page draws measured density beside the claimed one and lists what a void pass lost", async ({
  page,
}) => {
  await page.goto(`/chains/${CHAIN}`);
  const chart = page.getByTestId("density-chart");
  await expect(chart).toHaveAttribute("data-points", "3");
  await expect(chart).toHaveAttribute("data-measured-points", "3");
  await expect(chart.getByTestId("density-measured-point")).toHaveCount(3);
  await expect(chart.getByTestId("density-floor")).toContainText("floor 0.300");
  // The two void passes: claimed 0.9, measured under the floor.
  await expect(chart.getByTestId("density-measurement-marker")).toHaveCount(2);
  // The class follows measured density: the chain collapses at the first void pass.
  await expect(chart.getByTestId("density-collapse-marker")).toContainText("pass 2");
  // The chart's data table, for screen readers, names both values.
  const table = page.getByTestId("density-data");
  await expect(table).toContainText("Measured density");
  await expect(table).toContainText("measurement mismatch");

  await page.goto(`/chains/${CHAIN}?pass=${encodeURIComponent(`${CHAIN}.p2`)}`);
  const facts = page.getByTestId("measured-facts");
  await expect(facts).toBeVisible();
  await expect(facts.getByTestId("measured-density")).toContainText("claimed 0.900");
  await expect(page.getByTestId("measurement-mismatch")).toBeVisible();
  const lost = facts.getByTestId("lost-facts");
  for (const fact of ["3.9.0", "2026-05-02", "#4412", "/v1/export"]) await expect(lost).toContainText(fact);
  await expect(facts.getByTestId("fact-counts")).toContainText("are lost");
  // What the score is made of, and the method that made it.
  await expect(facts.getByTestId("measured-components")).toHaveText(
    /^coverage \d\.\d{3} × efficiency \d\.\d{3} \(floorline-facts\/4\)$/,
  );
});

test("the chains list filters on measurement mismatch", async ({ page }) => {
  await page.goto(`/chains?q=${RUN}`);
  await page.getByTestId("filter-status").selectOption("measurement_mismatch");
  await page.getByTestId("filter-apply").click();
  await expect(page).toHaveURL(/status=measurement_mismatch/);
  await expect
    .poll(() => page.getByTestId("chains-table").locator("tbody tr a.chain-link").allInnerTexts())
    .toEqual([CHAIN]);
  await expect(page.getByTestId("chains-table").locator('[data-status="measurement_mismatch"]')).toBeVisible();
});

test("the class's policy says it follows measured density", async ({ page }) => {
  await page.goto(`/policies?class=${CLASS}`);
  await expect(page.getByTestId("policy-density-source")).toHaveValue("measured");
  await expect(page.getByTestId("version-density-source")).toHaveText("measured");
});
