import { expect, test } from "@playwright/test";

test("the front page lists the demo chains with their passes, last verdict and collapse point", async ({ page }) => {
  await page.goto("/");
  const table = page.getByTestId("chains-table");
  for (const id of ["demo-healthy-orders", "demo-schema-truncation", "demo-semantic-void", "demo-encoding-degradation", "demo-broken-receipts"]) {
    await expect(table.getByRole("link", { name: id, exact: true })).toBeVisible();
  }
  const voidRow = table.locator("tr", { has: page.getByRole("link", { name: "demo-semantic-void", exact: true }) });
  await expect(voidRow.getByTestId("collapse-link")).toHaveText("pass 4");
  await voidRow.getByRole("link", { name: "demo-semantic-void", exact: true }).click();
  await expect(page).toHaveURL(/\/chains\/demo-semantic-void$/);
});
