// The content mismatch of the demo: a marker on both curves, the server's findings in the
// pass detail, and the chains filter.
import { expect, test } from "@playwright/test";

test("a pass whose content contradicts the client shows on the chart, in the detail and as a filter", async ({
  page,
}) => {
  await page.goto("/chains/demo-content-check?pass=demo-content-check.p3");
  await expect(page.getByTestId("size-checked-marker")).toBeAttached();
  await expect(page.getByTestId("density-checked-marker")).toBeAttached();
  const detail = page.getByTestId("server-checks");
  await expect(detail).toContainText("schema no");
  await expect(detail).toContainText("required field 'items.quantity' is missing (at items[17].quantity)");
  await expect(page.getByTestId("checked-mismatch")).toBeVisible();

  await page.goto("/chains?q=demo-");
  await page.getByTestId("filter-status").selectOption("checked_mismatch");
  await expect(page).toHaveURL(/status=checked_mismatch/);
  await expect
    .poll(() => page.getByTestId("chains-table").locator("tbody tr a.chain-link").allInnerTexts())
    .toEqual(["demo-content-check"]);
});
