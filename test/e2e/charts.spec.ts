// Charts that read at a glance: bars when there are few periods, one colour per class in both
// schemes, gaps where passes never arrived, points under the floor marked, zoom on long
// chains, and legend text that meets 4.5:1 contrast.
import { expect, test } from "@playwright/test";

test("the overview draws few periods as bars with one colour per class in both schemes", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  const chart = page.getByTestId("collapse-rate-chart");
  await expect(chart).toHaveAttribute("data-kind", "bars");
  const legend = chart.locator(".recharts-legend-item");
  // The chart draws after hydration: wait for its legend before reading it.
  await expect(legend.nth(1)).toBeVisible();
  const classes = await legend.locator(".legend-text").allInnerTexts();
  expect(classes.length).toBeGreaterThan(1);
  // Each class's legend swatch colour, resolved, per scheme.
  const swatches = async () =>
    legend.evaluateAll((items) =>
      items.map((item) => {
        const path = item.querySelector("path, rect");
        return path ? getComputedStyle(path).fill : "";
      }),
    );
  const light = await swatches();
  expect(new Set(light).size).toBe(light.length);
  const fillsLight = await legend.evaluateAll((items) =>
    items.map((item) => item.querySelector("path, rect")?.getAttribute("fill")),
  );
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(page.getByTestId("collapse-rate-chart")).toHaveAttribute("data-kind", "bars");
  // Again, only once the chart has drawn after the reload (toHaveText waits for it).
  await expect(page.getByTestId("collapse-rate-chart").locator(".recharts-legend-item .legend-text")).toHaveText(
    classes,
  );
  const fillsDark = await page
    .getByTestId("collapse-rate-chart")
    .locator(".recharts-legend-item")
    .evaluateAll((items) => items.map((item) => item.querySelector("path, rect")?.getAttribute("fill")));
  expect(fillsDark).toEqual(fillsLight);
  // Every bar carries its share as a label: its percentage, or under ten chains started the
  // counts (1/1, not 100%). The labels are those the chart's own data table implies.
  const labels = chart.locator(".recharts-label-list text");
  await expect(labels.first()).toHaveText(/^(\d+%|\d+\/\d+)$/);
  const cells = await page.getByTestId("collapse-rate-data").locator("td").allTextContents();
  const expected = cells.flatMap((cell) => {
    const m = /^(\d+)% \((\d+) of (\d+)\)$/.exec(cell);
    if (!m) return [];
    return [Number(m[3]) < 10 ? `${m[2]}/${m[3]}` : `${m[1]}%`];
  });
  expect(expected.length).toBeGreaterThan(0);
  const shown = (await labels.allTextContents()).filter((text) => text !== "");
  expect(shown.sort()).toEqual(expected.sort());
  // Each class in the legend says its n; together they are the chains the data table counts.
  const ns = (await chart.locator(".recharts-legend-item .legend-n").allTextContents()).map((text) => {
    const m = /^ \(n = (\d+)\)$/.exec(text);
    expect(m, text).not.toBeNull();
    return Number(m?.[1]);
  });
  expect(ns).toHaveLength(classes.length);
  const started = cells.reduce((sum, cell) => sum + Number(/ of (\d+)\)$/.exec(cell)?.[1] ?? 0), 0);
  expect(ns.reduce((a, b) => a + b, 0)).toBe(started);
});

function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

for (const colorScheme of ["light", "dark"] as const) {
  test(`chart legend text has at least 4.5:1 contrast (${colorScheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    const item = page.getByTestId("collapse-rate-chart").locator(".recharts-legend-item-text").first();
    await expect(item).toBeVisible();
    const color = await item.evaluate((el) => getComputedStyle(el.querySelector(".legend-text") ?? el).color);
    const panel = await page
      .locator(".panel")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(contrast(color, panel)).toBeGreaterThanOrEqual(4.5);
  });
}

test("a missing pass breaks the line and points under the floor are marked", async ({ page }) => {
  await page.goto("/chains/demo-broken-receipts");
  const curve = page.getByTestId("size-chart").locator("path.recharts-line-curve");
  await expect(curve).toHaveCount(1);
  // One move-to per stretch of consecutive passes: pass 3 never arrived, so two stretches.
  const d = (await curve.getAttribute("d")) ?? "";
  expect(d.match(/M/g)?.length).toBe(2);

  await page.goto("/chains/demo-semantic-void");
  await expect(page.getByTestId("density-under-floor").first()).toBeVisible();
  const healthy = await page.goto("/chains/demo-healthy-orders");
  expect(healthy?.status()).toBe(200);
  await expect(page.getByTestId("density-chart").locator(".recharts-line-curve")).toHaveCount(1);
  await expect(page.getByTestId("density-under-floor")).toHaveCount(0);
});

test("a long chain gets a zoom brush that narrows the pass axis", async ({ page, request }) => {
  const chainId = `e2e-long-${Date.now()}`;
  const receipts = Array.from({ length: 150 }, (_, i) => ({
    chain_id: chainId,
    pass_id: `${chainId}.p${i + 1}`,
    pass_number: i + 1,
    current_content_hash: `h${i + 1}`,
    input_content_hash: i > 0 ? `h${i}` : null,
    current_size_bytes: 100_000 - i * 500,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9 - (i % 7) * 0.01,
    content_class: "summary",
  }));
  // Not kept alive: the next post comes after the zoom, which under load takes about the server's
  // keep-alive timeout (10 s then), and a socket the server closes as the client reuses it is reset.
  const first = await request.post("/api/v1/passes", { data: { receipts }, headers: { connection: "close" } });
  expect(first.status()).toBe(201);
  await page.goto(`/chains/${chainId}`);
  const chart = page.getByTestId("size-chart");
  const brush = chart.locator(".recharts-brush");
  await expect(brush).toBeVisible();
  // The pass-number ticks (the size axis's ticks carry units and read as NaN).
  const ticks = async () =>
    (await chart.locator(".recharts-cartesian-axis-tick-value").allTextContents()).map(Number).filter(Number.isFinite);
  expect(Math.max(...(await ticks()))).toBeGreaterThanOrEqual(140);
  // Drag the right-hand handle to the middle: the axis now ends well before pass 150.
  const handle = brush.locator(".recharts-brush-traveller").nth(1);
  const box = await handle.boundingBox();
  const area = await brush.boundingBox();
  if (!box || !area) throw new Error("the brush is not laid out");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width / 2, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect.poll(async () => Math.max(...(await ticks()))).toBeLessThan(110);
  const zoomedTo = Math.max(...(await ticks()));

  // A live update (one more pass) keeps the zoomed stretch rather than starting over.
  const next = { ...receipts[149], pass_id: `${chainId}.p151`, pass_number: 151, current_content_hash: "h151" };
  expect((await request.post("/api/v1/passes", { data: { ...next, input_content_hash: "h150" } })).status()).toBe(201);
  await expect(page.getByTestId("pass-count")).toHaveText("151 passes", { timeout: 15_000 });
  await page.waitForTimeout(500);
  expect(Math.max(...(await ticks()))).toBe(zoomedTo);
  await expect(page.getByTestId("size-zoom-reset")).toBeVisible();

  await page.getByTestId("size-zoom-reset").click();
  await expect.poll(async () => Math.max(...(await ticks()))).toBeGreaterThanOrEqual(150);
});
