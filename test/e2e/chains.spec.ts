import { expect, test } from "@playwright/test";

test("the chain page draws both curves with their floors and the collapse marker, and lists the passes", async ({ page }) => {
  await page.goto("/chains/demo-semantic-void");
  await expect(page.getByTestId("chain-id")).toHaveText("demo-semantic-void");

  // recharts draws only after hydration: these assertions run in the browser.
  for (const metric of ["size", "density"]) {
    const chart = page.getByTestId(`${metric}-chart`);
    await expect(chart.locator("path.recharts-line-curve")).toHaveCount(1);
    await expect(chart.getByTestId(`${metric}-collapse-marker`)).toContainText("collapse · pass 4");
    await expect(chart.getByTestId(`${metric}-floor`)).toBeVisible();
    await expect(chart.getByTestId(`${metric}-boundary-marker`)).toContainText("halt");
  }
  await expect(page.getByTestId("size-chart").getByTestId("size-floor")).toContainText("400 B");
  await expect(page.getByTestId("density-chart").getByTestId("density-floor")).toContainText("0.450");

  const rows = page.getByTestId("passes-table").locator("tbody tr");
  await expect(rows).toHaveCount(5);
  await expect(rows.nth(3)).toContainText("collapse imminent");
  await expect(rows.nth(3)).toContainText("HALT: Density 0.38 < 0.45.");
});
