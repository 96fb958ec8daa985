// The nav moves between pages without a full reload and marks where you are; the theme
// toggle overrides the system scheme, is remembered, and applies before first paint.
import { expect, test } from "@playwright/test";

test("the nav navigates client-side and marks the current page", async ({ page }) => {
  await page.goto("/");
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Chains" }).click();
  await expect(page).toHaveURL(/\/chains$/);
  await expect(page.getByRole("heading", { level: 1, name: "Chains" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Chains" })).toHaveAttribute("aria-current", "page");
  await nav.getByRole("link", { name: "Traces" }).click();
  await expect(page).toHaveURL(/\/traces$/);
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
});

const background = (page: import("@playwright/test").Page) =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test("the theme toggle overrides the system scheme and is remembered without a flash", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/chains");
  const light = await background(page);
  const toggle = page.getByTestId("theme-toggle");
  await expect(toggle.getByRole("radio", { name: "System" })).toBeChecked();

  await toggle.getByText("Dark").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  const dark = await background(page);
  expect(dark).not.toBe(light);

  // After a reload the scheme is applied by the boot script, before any React code runs.
  await page.addInitScript(() => {
    document.addEventListener("DOMContentLoaded", () => {
      (window as unknown as { themeAtParse?: string }).themeAtParse = document.documentElement.dataset.theme;
    });
  });
  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { themeAtParse?: string }).themeAtParse)).toBe("dark");
  expect(await background(page)).toBe(dark);
  await expect(page.getByTestId("theme-toggle").getByRole("radio", { name: "Dark" })).toBeChecked();

  // Light wins over a dark system; System follows it again.
  await page.emulateMedia({ colorScheme: "dark" });
  await page.getByTestId("theme-toggle").getByText("Light").click();
  expect(await background(page)).toBe(light);
  await page.getByTestId("theme-toggle").getByText("System").click();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /./);
  expect(await background(page)).toBe(dark);
  await page.reload();
  expect(await background(page)).toBe(dark);
});
