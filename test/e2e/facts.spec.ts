// The facts ledger in a real browser against the built app (docs/facts.md): the demo's restore
// that brings facts back (demo/facts.ts) on its chain page's facts line and its Facts tab,
// filtered by fate, searched, paged, each pass and original a link.
import { expect, test } from "@playwright/test";

const CHAIN = "demo-facts-restored";
interface Fact {
  fact: string;
  fate: string;
  first_lost_pass: number | null;
  restored_at_pass: number | null;
  recoverable_from: string | null;
}

test("the chain's curves draw the facts surviving at each measured pass", async ({ page }) => {
  await page.goto(`/chains/${CHAIN}`);
  await expect(page.getByRole("heading", { name: "Facts surviving over passes" })).toBeVisible();
  const chart = page.getByTestId("facts-chart");
  await expect(chart).toHaveAttribute("data-points", "4");
  await expect(chart.locator(".recharts-line-curve")).toHaveCount(1);
  // The breach the guard caught, marked as the size and density curves mark it.
  await expect(chart.getByTestId("facts-collapse-marker").locator("text")).toHaveText("guarded · pass 2");
  const data = page.getByTestId("facts-chart-data");
  await data.locator("summary").click();
  const rows = data.locator("tbody tr");
  await expect(rows).toHaveCount(4);
  // The breach at pass 2 dips, the pass from the restored text rises again.
  const surviving = (await rows.locator("td:last-child").allTextContents()).map((t) => Number.parseInt(t, 10));
  expect(surviving[1]).toBeLessThan(surviving[0] ?? 0);
  expect(surviving[2]).toBeGreaterThan(surviving[1] ?? 100);
});

test("the Facts tab filters by fate, searches, pages, and links passes and originals", async ({ page }) => {
  const all = (await (await page.request.get(`/api/v1/chains/${CHAIN}/facts?limit=500`)).json()).items as Fact[];
  const count = (fate: string) => all.filter((f) => f.fate === fate).length;
  expect(count("restored")).toBeGreaterThan(0);
  expect(count("recoverable")).toBeGreaterThan(0);

  await page.goto(`/chains/${CHAIN}`);
  await page.getByRole("navigation", { name: "Chain views" }).getByRole("link", { name: "Facts" }).click();
  await expect(page).toHaveURL(new RegExp(`/chains/${CHAIN}/facts$`));
  await expect(page.getByTestId("facts-summary")).toContainText(
    `The source's ${all.length} facts, by salience, as of pass 4`,
  );
  for (const fate of ["retained", "lost", "restored", "recoverable"])
    await expect(page.getByTestId(`facts-fate-${fate}`)).toHaveText(new RegExp(`${count(fate)}$`));

  // The first page holds 50 facts, the next the rest, in the API's order.
  const table = page.getByTestId("facts-table");
  await expect(table.getByTestId("fact-text")).toHaveCount(Math.min(50, all.length));
  await expect(table.getByTestId("fact-text").first()).toHaveText(all[0]?.fact ?? "");
  if (all.length > 50) {
    await page.getByTestId("facts-next").click();
    await expect(page).toHaveURL(/after=49/);
    await expect(table.getByTestId("fact-text")).toHaveCount(all.length - 50);
    await expect(table.getByTestId("fact-text").first()).toHaveText(all[50]?.fact ?? "");
  }

  // Restored: each lost at the breach and brought back by pass 3, a link to that pass.
  await page.getByTestId("facts-fate-restored").click();
  await expect(page).toHaveURL(/fate=restored/);
  await expect(table.getByTestId("fact-fate")).toHaveCount(count("restored"));
  for (const text of await table.getByTestId("fact-fate").allTextContents()) expect(text).toBe("restored");
  const back = table.getByRole("link", { name: "pass 3" }).first();
  await expect(back).toHaveAttribute("href", `/chains/${CHAIN}?from=3`);

  // Searched within the filter: a piece of one restored fact, in another case.
  const restored = all.find((f) => f.fate === "restored") as Fact;
  const piece = restored.fact.slice(0, Math.min(6, restored.fact.length)).toUpperCase();
  await page.getByTestId("facts-q").fill(piece);
  await page.getByTestId("facts-q").press("Enter");
  await expect(page).toHaveURL(/fate=restored&q=|q=.*fate=restored/);
  const found = all.filter((f) => f.fate === "restored" && f.fact.toLowerCase().includes(piece.toLowerCase()));
  await expect(table.getByTestId("fact-text")).toHaveText(found.map((f) => f.fact));

  // Recoverable: each links the original its marker names, and that page opens.
  await page.goto(`/chains/${CHAIN}/facts?fate=recoverable`);
  const originals = table.getByTestId("fact-original");
  await expect(originals).toHaveCount(count("recoverable"));
  const key = all.find((f) => f.fate === "recoverable")?.recoverable_from ?? "";
  await expect(originals.first()).toHaveAttribute("href", `/originals/${key}`);
  await originals.first().click();
  // The marker names a prefix; the page opens the entry under its full key.
  await expect(page).toHaveURL(new RegExp(`/originals/${key}[0-9a-f]{${64 - key.length}}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Original /);

  // Nothing matches: the table says so.
  await page.goto(`/chains/${CHAIN}/facts?q=nothing-like-this`);
  await expect(page.getByTestId("facts-empty")).toBeVisible();
});
