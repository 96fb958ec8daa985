import { expect, test } from "@playwright/test";

test("lists every content class with its floor, and a class's version history", async ({ page }) => {
  await page.goto("/policies");
  const table = page.getByTestId("policies-table");
  for (const contentClass of ["api-json", "summary", "base64-blob"]) {
    await expect(table.getByRole("link", { name: contentClass, exact: true })).toBeVisible();
  }
  await expect(table.locator('tr[data-row-id="api-json"]')).toContainText("2 KiB");
  await table.getByRole("link", { name: "summary", exact: true }).click();
  await expect(page).toHaveURL(/\/policies\?class=summary$/);
  await expect(page.getByTestId("version-history").locator("tbody tr")).toHaveCount(1);
  await expect(page.getByTestId("version-history")).toContainText("in force");
});

test("a what-if with a stricter floor reports the chains that newly collapse, overlays the candidate, and saves nothing", async ({
  page,
}) => {
  await page.goto("/policies?class=summary");
  const form = page.getByTestId("what-if-form");
  await form.getByLabel("Candidate min density").fill("0.62");
  await form.getByRole("button", { name: "Replay chains under this floor" }).click();
  await expect(page).toHaveURL(/min_semantic_density=0.62/);

  const results = page.getByTestId("what-if-results");
  await expect(results.getByTestId("what-if-count-newly_collapsing").locator(".value")).toHaveText("1");
  await expect(results.getByTestId("what-if-count-earlier").locator(".value")).toHaveText("1");
  const newly = results.getByTestId("what-if-list-newly_collapsing");
  await expect(newly.getByRole("link", { name: "demo-broken-receipts" })).toHaveAttribute(
    "href",
    "/chains/demo-broken-receipts",
  );
  await expect(newly).toContainText(/HALT: Density 0\.\d\d < 0\.62\./);

  await newly.getByRole("link", { name: "show on chart" }).click();
  await expect(page).toHaveURL(/chain=demo-broken-receipts/);
  const overlay = page.getByTestId("what-if-overlay");
  await expect(overlay.getByTestId("density-chart").locator("path.recharts-line-curve")).toHaveCount(1);
  await expect(overlay.getByTestId("density-candidate-floor")).toContainText("candidate 0.620");
  await expect(overlay.getByTestId("density-candidate-collapse")).toContainText("candidate collapse · pass 4");

  // Nothing was written: the class is still at version 1.
  await expect(page.getByTestId("version-history").locator("tbody tr")).toHaveCount(1);
  const api = await page.request.get("/api/v1/policies/summary");
  expect((await api.json()).version).toBe(1);
});

test("editing a floor creates a new version, after a confirmation with the change and a note", async ({
  page,
  request,
}) => {
  const contentClass = `e2e-class-${Date.now()}`;
  const created = await request.put(`/api/v1/policies/${contentClass}`, {
    data: { min_size_bytes: 1000, min_semantic_density: 0.4, max_pass_number: 5 },
  });
  expect(created.status()).toBe(201);

  await page.goto(`/policies?class=${contentClass}`);
  const editor = page.getByTestId("policy-editor");
  await editor.getByLabel("Min size (bytes)").fill("1500");
  await editor.getByRole("button", { name: "Save as version 2…" }).click();
  const dialog = page.getByTestId("floor-change-dialog");
  await expect(dialog.getByTestId("floor-change-diff").locator('tr[data-field="min_size_bytes"]')).toContainText(
    "1000",
  );
  await expect(dialog.getByTestId("floor-change-diff").locator("tbody tr")).toHaveCount(1);
  // No recorded chain of this class: the dialog says there is no effect to show.
  await expect(dialog).toContainText("No chain of this class is recorded");
  await dialog.getByTestId("floor-change-note").fill("Bigger floor for the new tool.");
  await dialog.getByRole("button", { name: "Confirm: save as version 2" }).click();
  await expect(dialog.getByTestId("floor-change-status")).toContainText("Saved as version 2");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("version-history").locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("version-history").locator("tbody tr").first()).toContainText("v2");
  await expect(page.getByTestId("version-history").locator("tbody tr").first()).toContainText(
    "Bigger floor for the new tool.",
  );

  const policy = await (await request.get(`/api/v1/policies/${contentClass}`)).json();
  expect(policy).toMatchObject({ version: 2, min_size_bytes: 1500, min_semantic_density: 0.4, max_pass_number: 5 });
  expect(policy.versions).toHaveLength(2);

  await editor.getByLabel("Min semantic density").fill("1.5");
  await editor.getByRole("button", { name: "Save as version 3…" }).click();
  // The browser's own range check stops it before any confirmation.
  await expect(page.getByTestId("floor-change-dialog")).toHaveCount(0);
  expect((await (await request.get(`/api/v1/policies/${contentClass}`)).json()).version).toBe(2);
});

test("a class's own retention shows in the policies table and in what the overview says is kept", async ({
  page,
  request,
}) => {
  // A class of its own with no chains: nothing anywhere is deleted by it.
  const contentClass = `e2e-kept-${Date.now()}`;
  const saved = await request.put(`/api/v1/policies/${contentClass}`, {
    data: {
      min_size_bytes: 100,
      min_semantic_density: 0.2,
      max_pass_number: 9,
      retention_days: 45,
      note: "keep a month and a half",
    },
  });
  expect(saved.status()).toBe(201);
  expect((await saved.json()).retention_days).toBe(45);

  await page.goto("/policies");
  const row = page.getByTestId("policies-table").locator(`tr[data-row-id="${contentClass}"]`);
  await expect(row).toContainText("45 days");
  await expect(page.getByTestId("policies-table").locator('tr[data-row-id="api-json"]')).toContainText("server-wide");
  await page.goto("/");
  await expect(page.getByTestId("retention")).toContainText(`${contentClass} 45 days`);

  // The editor changes the days like any floor field, through the same confirmation.
  await page.goto(`/policies?class=${contentClass}`);
  const editor = page.getByTestId("policy-editor");
  await expect(editor.getByLabel("Kept (days)")).toHaveValue("45");
  await editor.getByLabel("Kept (days)").fill("60");
  await editor.getByRole("button", { name: "Save as version 2…" }).click();
  const dialog = page.getByTestId("floor-change-dialog");
  const diff = dialog.getByTestId("floor-change-diff");
  await expect(diff.locator("tbody tr")).toHaveCount(1);
  await expect(diff.locator('tr[data-field="retention_days"]')).toContainText("45");
  await expect(diff.locator('tr[data-field="retention_days"]')).toContainText("60");
  await dialog.getByTestId("floor-change-note").fill("Two months.");
  await dialog.getByRole("button", { name: "Confirm: save as version 2" }).click();
  await expect(dialog.getByTestId("floor-change-status")).toContainText("Saved as version 2");
  // The page refreshes after a save; a Close clicked while it re-renders was once lost in CI
  // and the open dialog then covered the editor: close until it is closed.
  await expect(async () => {
    if (await dialog.isVisible()) await dialog.getByRole("button", { name: "Close" }).click({ timeout: 2_000 });
    await expect(dialog).toBeHidden({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  expect(await (await request.get(`/api/v1/policies/${contentClass}`)).json()).toMatchObject({
    version: 2,
    retention_days: 60,
    min_size_bytes: 100,
  });

  // Emptied, the class follows the server-wide setting again.
  await editor.getByLabel("Kept (days)").fill("");
  await editor.getByRole("button", { name: "Save as version 3…" }).click();
  await expect(diff.locator('tr[data-field="retention_days"]')).toContainText("server-wide");
  await dialog.getByTestId("floor-change-note").fill("Back to the server's days.");
  await dialog.getByRole("button", { name: "Confirm: save as version 3" }).click();
  await expect(dialog.getByTestId("floor-change-status")).toContainText("Saved as version 3");
  expect((await (await request.get(`/api/v1/policies/${contentClass}`)).json()).retention_days).toBeNull();
  await dialog.getByRole("button", { name: "Close" }).click();

  // The version history shows each version's days, and a revert brings them back with the floor.
  const history = page.getByTestId("version-history");
  await expect(history.locator('tr[data-version="3"]')).toContainText("server-wide");
  await expect(history.locator('tr[data-version="2"]')).toContainText("60 days");
  await expect(history.locator('tr[data-version="1"]')).toContainText("45 days");
  await history.locator('tr[data-version="2"]').getByRole("button", { name: "Revert to v2…" }).click();
  await expect(diff.locator("tbody tr")).toHaveCount(1);
  await expect(diff.locator('tr[data-field="retention_days"]')).toContainText("60");
  await dialog.getByTestId("floor-change-note").fill("Two months again.");
  await dialog.getByRole("button", { name: "Confirm: save as version 4" }).click();
  await expect(dialog.getByTestId("floor-change-status")).toContainText("Saved as version 4");
  expect(await (await request.get(`/api/v1/policies/${contentClass}`)).json()).toMatchObject({
    version: 4,
    retention_days: 60,
  });
});
