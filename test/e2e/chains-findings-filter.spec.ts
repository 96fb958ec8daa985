// The chains list's findings filters (issue 44): the "Markers" filter by marker finding kind,
// the `canary_lost` status, and the demo's chains with findings ahead of healthy ones in the
// default attention order.
import { expect, test } from "@playwright/test";

const rows = (page: import("@playwright/test").Page) => page.getByTestId("chains-table").locator("tbody tr");

test("the Markers filter keeps the chains with a marker finding of that kind, and the URL says so", async ({
  page,
}) => {
  await page.goto("/chains?q=demo-");
  const filter = page.getByTestId("filter-marker-kind");
  await expect(filter).toHaveValue("");
  await filter.selectOption({ label: "nested marker" });
  await page.getByTestId("filter-apply").click();
  await expect(page).toHaveURL(/marker_kind=marker_nested/);
  await expect(rows(page).locator("a.chain-link")).toHaveText(["demo-nested-marker"]);
  await expect(page.getByTestId("chains-total")).toHaveText("1 chain match");
  // The page shows the filter it applied, and the export takes it along.
  await expect(page.getByTestId("filter-marker-kind")).toHaveValue("marker_nested");
  await expect(page.getByTestId("export-csv")).toHaveAttribute("href", /marker_kind=marker_nested/);

  // A kind no demo chain has: nothing, with the way back.
  await page.getByTestId("filter-marker-kind").selectOption("marker_unknown");
  await page.getByTestId("filter-apply").click();
  await expect(page).toHaveURL(/marker_kind=marker_unknown/);
  await expect(page.getByText("No chains match these filters.")).toBeVisible();

  // An unknown kind in a shared link is named and ignored, not an error page.
  await page.goto("/chains?q=demo-&marker_kind=marker_lost");
  await expect(page.getByTestId("ignored-params")).toContainText("marker_kind=marker_lost");
  await expect(page.getByTestId("ignored-params")).toContainText("unknown marker finding kind");
  await expect(rows(page).first()).toBeVisible();
});

test("canary loss is a status of its own, filterable, and raises the chain in the attention order", async ({
  page,
}) => {
  await page.goto("/chains?status=canary_lost&q=demo-");
  await expect(rows(page).locator("a.chain-link")).toHaveText(["demo-opaque-canaries"]);
  await expect(rows(page).first().locator("[data-status='canary_lost']")).toHaveText("canary lost");

  // Default order: the collapsed demo chains, then those with any other problem (the canary
  // and marker chains among them), then the healthy ones.
  await page.goto("/chains?q=demo-&limit=100");
  const statuses = await rows(page).evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll("[data-status]")].map((b) => b.getAttribute("data-status"))),
  );
  const ids = await rows(page).locator("a.chain-link").allTextContents();
  const firstHealthy = statuses.findIndex((s) => s.length === 1 && s[0] === "healthy");
  expect(firstHealthy).toBeGreaterThan(0);
  expect(ids.indexOf("demo-opaque-canaries")).toBeLessThan(firstHealthy);
  expect(ids.indexOf("demo-nested-marker")).toBeLessThan(firstHealthy);
});
