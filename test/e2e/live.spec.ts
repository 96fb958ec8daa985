// Live pages: a chain page opened before the chain exists shows it when it arrives; the
// chains list and the overview refresh themselves, with a pause that holds; a live refresh of
// a chain page does not prefetch every pass link; and the event streams' limits hold over HTTP.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { postJson, startApp } from "../support/app-server";
import { settled } from "./settled";

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
  // The page's clock is Playwright's: the refresh's interval passes when the test says so,
  // not in real seconds. The refreshes themselves are real requests to the server.
  await page.clock.install();
  const refreshes: string[] = [];
  page.on("request", (r) => {
    if (r.headers().rsc === "1" && !r.headers()["next-router-prefetch"]) refreshes.push(r.url());
  });
  const stamp = Date.now();
  await page.goto(`/chains?q=e2e-autorefresh-${stamp}`);
  await expect(page.getByTestId("chains-total")).toHaveText(/^0 chains/);
  // The interval the page says it refreshes at ("every 5 s").
  const every = /every (\d+) s/.exec((await page.getByTestId("auto-refresh").textContent()) ?? "");
  expect(every).not.toBeNull();
  const interval = Number(every![1]) * 1000;
  await markWindow(page);
  await post(request, `e2e-autorefresh-${stamp}-a`, [1]);
  await page.clock.runFor(interval);
  await expect(page.getByTestId("chains-total")).toHaveText(/^1 chain/);
  expect(await stillSameWindow(page)).toBe(true);

  const toggle = page.getByTestId("auto-refresh-toggle");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("auto-refresh")).toContainText("paused");
  await post(request, `e2e-autorefresh-${stamp}-b`, [1]);
  const beforePause = refreshes.length;
  // Three intervals paused: a refresh would have been asked for at each (a request starts
  // within milliseconds of its tick; a second of real time leaves it room to show).
  await page.clock.runFor(3 * interval);
  await page.waitForTimeout(1_000);
  expect(refreshes.length - beforePause).toBe(0);
  await expect(page.getByTestId("chains-total")).toHaveText(/^1 chain/);
  await toggle.click();
  await page.clock.runFor(interval);
  await expect(page.getByTestId("chains-total")).toHaveText(/^2 chains/);
  expect(refreshes.length).toBeGreaterThan(beforePause);
});

test("the overview refreshes itself", async ({ page, request }) => {
  await page.clock.install();
  await page.goto("/?range=24h");
  const chains = page.getByTestId("figure-chains").locator(".value");
  const before = Number(((await chains.textContent()) ?? "").replace(/\D/g, ""));
  await markWindow(page);
  await post(request, `e2e-overview-live-${Date.now()}`, [1]);
  await page.clock.runFor(5_000);
  // Other specs add chains to this server meanwhile: the figure counts this one at least.
  await expect
    .poll(async () => Number(((await chains.textContent()) ?? "").replace(/\D/g, "")), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(before + 1);
  expect(await stillSameWindow(page)).toBe(true);
});

test("a live update of a chain page does not prefetch the pass links", async ({ page, request }) => {
  const chainId = `e2e-prefetch-${Date.now()}`;
  await post(request, chainId, [1, 2, 3, 4, 5, 6]);
  await page.goto(`/chains/${chainId}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
  // Prefetches the first render asks for are not this test's subject: the live update's are.
  await settled(page);
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

test("event streams: the cap holds when streams open together, and one key cannot take them all", async () => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-stream-limits-"));
  const token = `e2e-stream-limits-${"t".repeat(40)}`;
  const app = await startApp({
    dataDir,
    env: { FLOORLINE_API_TOKEN: token, FLOORLINE_MAX_EVENT_STREAMS: "4", FLOORLINE_MAX_EVENT_STREAMS_PER_CALLER: "2" },
  });
  const streams: AbortController[] = [];
  const open = async (key: string) => {
    const abort = new AbortController();
    streams.push(abort);
    const response = await fetch(`${app.base}/api/v1/chains/e2e-limits/events`, {
      headers: { authorization: `Bearer ${key}` },
      signal: abort.signal,
    });
    return response;
  };
  try {
    const asToken = { authorization: `Bearer ${token}` };
    expect((await postJson(`${app.base}/api/v1/passes`, receipt("e2e-limits", 1), asToken)).status).toBe(201);
    const keyFor = async (name: string) => {
      const created = await postJson(`${app.base}/api/v1/keys`, { name, scopes: ["read"] }, asToken);
      expect(created.status).toBe(201);
      return (await created.json()).key as string;
    };
    const [a, b] = [await keyFor("reader-a"), await keyFor("reader-b")];

    // One key, many at once: its share and no more.
    const mine = await Promise.all(Array.from({ length: 8 }, () => open(a)));
    expect(mine.filter((r) => r.status === 200).length).toBe(2);
    const refused = mine.find((r) => r.status === 429);
    expect(refused?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused?.json()).toMatchObject({ error: { code: "too_many_requests" } });
    // Another key still gets streams, up to the server's cap, and then nobody does.
    const theirs = await Promise.all(Array.from({ length: 4 }, () => open(b)));
    expect(theirs.map((r) => r.status).sort()).toEqual([200, 200, 429, 429]);
    expect((await open(token)).status).toBe(429);
  } finally {
    for (const abort of streams) abort.abort();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a chain page whose stream the server refused comes back live when there is room again", async ({ page }) => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-stream-retry-"));
  const app = await startApp({ dataDir, env: { FLOORLINE_MAX_EVENT_STREAMS: "1" } });
  const held = new AbortController();
  try {
    expect((await postJson(`${app.base}/api/v1/passes`, receipt("e2e-retry", 1))).status).toBe(201);
    // Another client holds the server's only stream, so the page's own is refused (429).
    const holder = await fetch(`${app.base}/api/v1/chains/e2e-retry/events`, { signal: held.signal });
    expect(holder.status).toBe(200);
    await page.goto(`${app.base}/chains/e2e-retry`);
    const status = page.getByTestId("live-status");
    await expect(status).toHaveAttribute("data-state", "unavailable");
    await expect(status).toContainText("retrying");
    // Room again: the page opens its stream by itself, without a reload.
    held.abort();
    await expect(status).toHaveAttribute("data-state", "live", { timeout: 30_000 });
  } finally {
    held.abort();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
