// Keyboard and assistive technology on every page, in both colour schemes, and the phone
// width: axe finds no serious or critical violation, a skip link leads to the content, the
// page never pans sideways at 390 px and the nav folds away behind a menu button.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { test as shared } from "./shared-page";
import { settled } from "./settled";
import { everyPage } from "./ui-pages";

// One test per page, so a slow page cannot starve the others of time. These only read what
// a page shows, so they share one warm page per worker (./shared-page.ts).
const PAGE_NAMES = [
  "overview",
  "chains",
  "chain",
  "chain-pass",
  "chain-waiting",
  "action-space",
  "facts",
  "policies",
  "policy",
  "originals",
  "original",
  "traces",
  "trace",
  "webhooks",
  "keys",
  "operators",
  "sign-in",
  "not-found",
];

test("every page of the list is checked by axe below (the list is complete)", async ({ request }) => {
  const checked = new Set(PAGE_NAMES);
  const missing = (await everyPage(request)).filter((p) => !p.thirdParty && !checked.has(p.name)).map((p) => p.name);
  expect(missing).toEqual([]);
});

const PHONE = { width: 390, height: 844 };

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} ${v.help} ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

/** How far the page is wider than its window, once the layout has settled at this size. */
async function sidewaysPan(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

// Each page is loaded once: axe in the light scheme, then dark (the colours follow the scheme
// through CSS alone, light-dark(), so the switch needs no reload), then the phone width (charts
// redraw on a resize, hence the wait for the layout to settle at the new size).
for (const name of PAGE_NAMES) {
  shared(
    `${name}: no serious or critical axe violation, light and dark; no wider than a phone`,
    async ({ sharedPage: page, request }) => {
      const found = (await everyPage(request)).find((p) => p.name === name);
      if (!found) throw new Error(`no page named ${name}`);
      await page.goto(found.path);
      // Charts draw only after hydration; axe reads the page once they and the streamed parts are in.
      await settled(page);
      const light = await seriousViolations(page);
      expect(light, `light:\n${light.join("\n")}`).toEqual([]);
      await page.emulateMedia({ colorScheme: "dark" });
      expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(true);
      const dark = await seriousViolations(page);
      expect(dark, `dark:\n${dark.join("\n")}`).toEqual([]);

      await page.setViewportSize(PHONE);
      await expect.poll(() => sidewaysPan(page), { message: `${name} pans sideways at 390 px` }).toBeLessThanOrEqual(0);
    },
  );
}

// The API reference is a third party's page, left out of the axe checks but not of the width.
test("every page of the list is checked at phone width (the list is complete)", async ({ request }) => {
  const checked = new Set([...PAGE_NAMES, "api-reference"]);
  const missing = (await everyPage(request)).filter((p) => !checked.has(p.name)).map((p) => p.name);
  expect(missing).toEqual([]);
});

shared("api-reference is no wider than a 390 px phone screen", async ({ sharedPage: page, request }) => {
  const found = (await everyPage(request)).find((p) => p.name === "api-reference");
  if (!found) throw new Error("no page named api-reference");
  await page.setViewportSize(PHONE);
  await page.goto(found.path);
  await expect(page.getByText("Floorline API").first()).toBeVisible({ timeout: 30_000 });
  expect(await sidewaysPan(page)).toBeLessThanOrEqual(0);
});

test("on a phone the nav folds behind a menu button that opens it", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/chains");
  const nav = page.getByRole("navigation", { name: "Main" });
  const traces = nav.getByRole("link", { name: "Traces" });
  await expect(traces).toBeHidden();
  const menu = nav.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(traces).toBeVisible();
  const box = await traces.boundingBox();
  expect(box && box.x + box.width).toBeLessThanOrEqual(390);
  await traces.click();
  await expect(page).toHaveURL(/\/traces$/);
  await expect(traces).toBeHidden();
});

test("the first Tab reaches a skip link that moves focus to the content", async ({ page }) => {
  await page.goto("/chains");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(page.locator("main")).toBeFocused();
  // The next Tab lands inside the content, not back in the header.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest("main")))).toBe(true);
});

test("chain filters apply on submit: arrow keys in a select keep focus and the URL", async ({ page }) => {
  await page.goto("/chains?q=demo-");
  const status = page.getByTestId("filter-status");
  await status.focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.waitForTimeout(800);
  await expect(page).toHaveURL(/\/chains\?q=demo-$/);
  await expect(status).toBeFocused();
  const chosen = await status.inputValue();
  expect(chosen).not.toBe("");
  await page.getByTestId("filter-apply").press("Enter");
  await expect(page).toHaveURL(new RegExp(`status=${chosen}`));
});

test("Escape closes the pass panel", async ({ page }) => {
  await page.goto("/chains/demo-schema-truncation?pass=demo-schema-truncation.p5&from=5");
  await expect(page.getByTestId("pass-detail")).toBeVisible();
  // Escape is handled once the pass panel's part of the page has hydrated, which may come
  // after the rest (each streamed part hydrates on its own): press until it is.
  await expect(page.getByTestId("live-status")).not.toHaveAttribute("data-state", "connecting");
  await expect(async () => {
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("pass-detail")).toHaveCount(0, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page).not.toHaveURL(/pass=/);
});

test("each chart is a labelled figure with its points in a table a keyboard can open", async ({ page }) => {
  await page.goto("/chains/demo-semantic-void");
  const density = page.getByRole("figure", { name: /Semantic density over pass number/ });
  await expect(density).toBeVisible();
  await expect(page.getByRole("figure", { name: /Size over pass number/ })).toBeVisible();
  const drawn = Number(await page.getByTestId("density-chart").getAttribute("data-points"));
  const summary = density.getByText(/Show data/);
  await summary.focus();
  await page.keyboard.press("Enter");
  const table = density.getByRole("table");
  await expect(table).toBeVisible();
  await expect(table.locator("tbody tr")).toHaveCount(drawn);
  await expect(table).toContainText("under floor");

  await page.goto("/");
  const overview = page.getByRole("figure", { name: /Collapse rate per content class/ });
  await expect(overview).toBeVisible();
  await overview.getByText(/Show data/).click();
  await expect(overview.getByRole("table")).toContainText("summary");
});

test("on a phone a chain's passes fit the screen; its hashes stay in the pass's panel", async ({ page }) => {
  const table = page.getByTestId("passes-table");
  const passIdHeader = table.getByRole("columnheader", { name: "Pass id" });
  await page.goto("/chains/demo-claimed-density");
  await expect(passIdHeader).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(passIdHeader).toBeHidden();
  await expect(table.getByRole("columnheader", { name: "Density" })).toBeVisible();
  // The table's own scroll box has nothing to scroll sideways.
  const overflow = await table.evaluate((t) => {
    const box = t.parentElement as HTMLElement;
    return box.scrollWidth - box.clientWidth;
  });
  expect(overflow).toBeLessThanOrEqual(0);
  await table.locator("tbody tr").last().click();
  await expect(page.getByTestId("pass-detail")).toContainText("demo-claimed-density.p4");
});

test("on a phone the chains list is a card per chain, every value under its column's name", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/chains?q=demo-claimed-density");
  const table = page.getByTestId("chains-table");
  const row = table.locator('tr[data-row-id="demo-claimed-density"]');
  const measured = row.locator('td[data-label="Lowest measured density"]');
  await expect(measured).toBeVisible();
  // The value is named on its own line, since the header row is out of sight.
  const label = await measured.evaluate((td) => getComputedStyle(td, "::before").content);
  expect(label).toBe('"Lowest measured density"');
  expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe("block");
  // Columns the chain's page shows stay left out, and nothing scrolls sideways.
  await expect(row.locator('td[data-label="Class"]')).toBeHidden();
  const overflow = await table.evaluate((t) => {
    const box = t.parentElement as HTMLElement;
    return box.scrollWidth - box.clientWidth;
  });
  expect(overflow).toBeLessThanOrEqual(0);
  // A wide screen keeps the table.
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe("table-row");
});
