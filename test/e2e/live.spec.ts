// Live pages: a chain page opened before the chain exists shows it when it arrives; the
// chains list and the overview refresh themselves, with a pause that holds; and a live
// refresh of a chain page does not prefetch every pass link.
import { expect, test, type APIRequestContext } from "@playwright/test";

const receipt = (chainId: string, n: number) => ({
  chain_id: chainId,
  pass_id: `${chainId}.p${n}`,
  pass_number: n,
  current_content_hash: `h${n}`,
  input_content_hash: n > 1 ? `h${n - 1}` : null,
  current_size_bytes: 9000 - n * 100,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  content_class: "summary",
});

async function post(request: APIRequestContext, chainId: string, numbers: number[]) {
  const response = await request.post("/api/v1/passes", {
    data: { receipts: numbers.map((n) => receipt(chainId, n)) },
  });
  expect(response.status()).toBe(201);
}

const markWindow = (page: import("@playwright/test").Page) =>
  page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
const stillSameWindow = (page: import("@playwright/test").Page) =>
  page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);

test("a chain page opened before the chain's first receipt shows the chain when it arrives", async ({
  page,
  request,
}) => {
  const chainId = `e2e-early-${Date.now()}`;
  await page.goto(`/chains/${chainId}`);
  const waiting = page.getByTestId("chain-waiting");
  await expect(waiting).toContainText("No receipts yet");
  await expect(waiting.getByRole("status")).toHaveAttribute("data-state", "waiting");
  await post(request, chainId, [1, 2]);
  await expect(page.getByTestId("chain-id")).toHaveText(chainId);
  await expect(page.getByTestId("passes-table").locator("tbody tr")).toHaveCount(2);
});

test("the chains list refreshes itself, and Pause stops it", async ({ page, request }) => {
  const stamp = Date.now();
  await page.goto(`/chains?q=e2e-autorefresh-${stamp}`);
  await expect(page.getByTestId("chains-total")).toHaveText(/^0 chains/);
  await markWindow(page);
  await post(request, `e2e-autorefresh-${stamp}-a`, [1]);
  await expect(page.getByTestId("chains-total")).toHaveText(/^1 chain/, { timeout: 15_000 });
  expect(await stillSameWindow(page)).toBe(true);

  const toggle = page.getByTestId("auto-refresh-toggle");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("auto-refresh")).toContainText("paused");
  await post(request, `e2e-autorefresh-${stamp}-b`, [1]);
  await page.waitForTimeout(7_000);
  await expect(page.getByTestId("chains-total")).toHaveText(/^1 chain/);
  await toggle.click();
  await expect(page.getByTestId("chains-total")).toHaveText(/^2 chains/, { timeout: 15_000 });
});

test("the overview refreshes itself", async ({ page, request }) => {
  await page.goto("/?range=24h");
  const chains = page.getByTestId("figure-chains").locator(".value");
  const before = Number(((await chains.textContent()) ?? "").replace(/\D/g, ""));
  await markWindow(page);
  await post(request, `e2e-overview-live-${Date.now()}`, [1]);
  await expect
    .poll(async () => Number(((await chains.textContent()) ?? "").replace(/\D/g, "")), { timeout: 15_000 })
    .toBe(before + 1);
  expect(await stillSameWindow(page)).toBe(true);
});

test("a live update of a chain page does not prefetch the pass links", async ({ page, request }) => {
  const chainId = `e2e-prefetch-${Date.now()}`;
  await post(request, chainId, [1, 2, 3, 4, 5, 6]);
  await page.goto(`/chains/${chainId}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
  await page.waitForLoadState("networkidle");
  const prefetches: string[] = [];
  page.on("request", (r) => {
    const headers = r.headers();
    if (headers["next-router-prefetch"] || headers.purpose === "prefetch") prefetches.push(r.url());
  });
  for (const n of [7, 8, 9]) {
    await post(request, chainId, [n]);
    await expect(page.getByTestId("passes-table").locator("tbody tr")).toHaveCount(n);
  }
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  const passLinks = prefetches.filter((u) => u.includes("pass="));
  expect(passLinks, passLinks.join("\n")).toEqual([]);
});
