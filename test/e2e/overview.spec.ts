import { expect, test } from "@playwright/test";

test("the overview shows the headline figures, collapse rates per class and the latest collapse points", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // The demo has five chains, three of them collapsed; other specs may add more while this runs.
  // Every figure but passes counts chains (operator-questions.spec.ts follows each to its list).
  const number = async (key: string) =>
    Number(((await page.getByTestId(`figure-${key}`).locator(".value").textContent()) ?? "").replace(/,/g, ""));
  expect(await number("chains")).toBeGreaterThanOrEqual(5);
  expect(await number("chains_collapsed")).toBeGreaterThanOrEqual(3);
  expect(await number("chains_floor_breached")).toBeGreaterThanOrEqual(2);
  expect(await number("chains_client_mismatch")).toBeGreaterThanOrEqual(2);
  expect(await number("chains_broken_integrity")).toBeGreaterThanOrEqual(3);
  expect(await number("chains_continued_after_halt")).toBeGreaterThanOrEqual(1);
  expect(await number("chains_restore_not_honoured")).toBeGreaterThanOrEqual(1);

  const chart = page.getByTestId("collapse-rate-chart");
  // Few periods with data draw as bars, many as lines.
  await expect(chart.locator("path.recharts-line-curve, .recharts-bar-rectangle").first()).toBeAttached();
  for (const contentClass of ["api-json", "summary", "base64-blob"]) {
    await expect(chart.locator(".recharts-legend-item", { hasText: contentClass })).toBeVisible();
  }

  const recent = page.getByTestId("recent-collapses");
  await expect(recent.getByRole("link", { name: "demo-semantic-void" })).toBeVisible();
  await recent.getByRole("link", { name: "demo-semantic-void" }).click();
  await expect(page).toHaveURL(/\/chains\/demo-semantic-void\?pass=demo-semantic-void\.p4&from=4$/);
  await expect(page.getByTestId("pass-detail")).toContainText("HALT: Density 0.38 < 0.45.");
});

test("the time range is part of the URL and changes what is counted", async ({ page }) => {
  await page.goto("/");
  const range = page.getByTestId("range");
  await expect(range.getByRole("link", { name: "7 days" })).toHaveAttribute("aria-current", "true");
  await range.getByRole("link", { name: "All time" }).click();
  await expect(page).toHaveURL(/\?range=all$/);
  await expect(range.getByRole("link", { name: "All time" })).toHaveAttribute("aria-current", "true");
  await expect(page.getByTestId("figure-passes")).toBeVisible();

  // The demo's passes are minutes to hours old: none fall in a range that ended before them.
  await page.goto("/?range=24h");
  expect(
    Number(((await page.getByTestId("figure-passes").locator(".value").textContent()) ?? "").replace(/,/g, "")),
  ).toBeGreaterThanOrEqual(25);
});
