import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";

const DEMO = [
  "demo-healthy-orders",
  "demo-schema-truncation",
  "demo-semantic-void",
  "demo-encoding-degradation",
  "demo-broken-receipts",
  "demo-content-check",
  "demo-claimed-density",
  "demo-opaque-canaries",
  "demo-facts-restored",
  "demo-nested-marker",
];

const chainIds = (page: Page) => page.getByTestId("chains-table").locator("tbody tr a.chain-link").allInnerTexts();

test.describe("chains list", () => {
  test("filters by status and search change the rows and the URL", async ({ page }) => {
    await page.goto("/chains?q=demo-");
    await expect.poll(() => chainIds(page).then((ids) => ids.sort())).toEqual([...DEMO].sort());

    await page.getByTestId("filter-status").selectOption("floor_breached");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/status=floor_breached/);
    await expect
      .poll(() => chainIds(page).then((ids) => ids.sort()))
      .toEqual(["demo-encoding-degradation", "demo-schema-truncation"]);

    await page.getByTestId("filter-status").selectOption("");
    // demo:agent's chains are named like the demo's: search for the demo's own.
    await page.getByTestId("filter-q").fill("demo-semantic");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/q=demo-semantic/);
    await expect.poll(() => chainIds(page)).toEqual(["demo-semantic-void"]);

    await page.goto("/chains?q=no-chain-has-this-id");
    await expect(page.getByTestId("chains-table")).toContainText("No chains match these filters.");
  });

  test("the default order puts the chains that need attention first", async ({ page }) => {
    await page.goto("/chains?q=demo-");
    await expect(page.getByTestId("filter-sort")).toHaveValue("attention");
    const demo = async () => (await chainIds(page)).filter((id) => DEMO.includes(id));
    await expect.poll(demo).toHaveLength(DEMO.length);
    const order = await demo();
    // The two that went past their floor, then the five with other problems (receipts that do
    // not hold together, content and measurement that contradict the claims, a marker that
    // leads nowhere, canaries lost: docs/markers.md, docs/canaries.md), then the healthy chains
    // and the saves.
    expect(order.slice(0, 2).sort()).toEqual(["demo-schema-truncation", "demo-semantic-void"]);
    expect(order.slice(2, 7).sort()).toEqual([
      "demo-broken-receipts",
      "demo-claimed-density",
      "demo-content-check",
      "demo-nested-marker",
      "demo-opaque-canaries",
    ]);
    expect(order.slice(7).sort()).toEqual(["demo-encoding-degradation", "demo-facts-restored", "demo-healthy-orders"]);
    // The plain newest-first order is one choice away.
    await page.getByTestId("filter-sort").selectOption({ label: "Last activity" });
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/sort=last_activity/);
  });

  test("the measured density stands beside the claim, and its sort puts the void first", async ({ page }) => {
    await page.goto("/chains?q=demo-");
    await page.getByTestId("filter-sort").selectOption({ label: "Lowest measured density" });
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/sort=min_measured_density/);
    // The demo's void claims a density that passes its floor; measured, it is the emptiest chain.
    await expect.poll(async () => (await chainIds(page))[0]).toBe("demo-claimed-density");
    const table = page.getByTestId("chains-table");
    const headers = await table.getByRole("columnheader").allTextContents();
    const claimedAt = headers.findIndex((h) => h.includes("Lowest claimed density"));
    const measuredAt = headers.findIndex((h) => h.includes("Lowest measured density"));
    expect(measuredAt).toBeGreaterThan(claimedAt);
    const cells = await table.locator("tbody tr").first().locator("td").allInnerTexts();
    const claimed = Number(cells[claimedAt]);
    const measured = Number(cells[measuredAt]);
    expect(claimed - measured).toBeGreaterThan(0.5);
    // A chain none of whose passes was measured shows a dash, and sorts after every measured one.
    const last = await table.locator("tbody tr").last().locator("td").allInnerTexts();
    expect(last[measuredAt]).toBe("—");
    // The chain's own page says both figures in its header.
    await page.goto("/chains/demo-claimed-density");
    await expect(page.getByTestId("density-summary")).toHaveText(
      `lowest density ${cells[claimedAt]} claimed, ${cells[measuredAt]} measured`,
    );
  });

  test("sorting changes the order and the URL", async ({ page }) => {
    await page.goto("/chains?q=demo-");
    // The sort and the column read the receipts' claim, and say so (the measured density is
    // on the chain page): an operator must not take a claimed 0.9 for a measured one.
    await expect(page.getByTestId("chains-table").getByRole("columnheader")).toContainText(["Lowest claimed density"]);
    await page.getByTestId("filter-sort").selectOption({ label: "Lowest claimed density" });
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/sort=min_density/);
    await expect
      .poll(() => chainIds(page))
      .toEqual([
        "demo-encoding-degradation",
        "demo-facts-restored",
        "demo-semantic-void",
        "demo-broken-receipts",
        "demo-schema-truncation",
        "demo-healthy-orders",
        "demo-content-check",
        "demo-nested-marker",
        "demo-claimed-density",
        // An opaque compaction's receipts claim no measurement: density 1.
        "demo-opaque-canaries",
      ]);
    await page.getByTestId("filter-order").selectOption({ label: "highest first" });
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/order=desc/);
    await expect
      .poll(async () => (await chainIds(page)).slice(0, 2))
      .toEqual(["demo-opaque-canaries", "demo-claimed-density"]);

    // A new sort starts in its own natural order: smallest size first.
    await page.getByTestId("filter-sort").selectOption("min_size");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/sort=min_size/);
    await expect(page).not.toHaveURL(/order=/);
    await expect
      .poll(() => chainIds(page))
      .toEqual([
        "demo-claimed-density",
        "demo-semantic-void",
        "demo-facts-restored",
        "demo-encoding-degradation",
        "demo-broken-receipts",
        "demo-nested-marker",
        "demo-schema-truncation",
        "demo-opaque-canaries",
        "demo-content-check",
        "demo-healthy-orders",
      ]);
  });

  test("export downloads the filtered rows as CSV and JSON", async ({ page }) => {
    await page.goto("/chains?q=demo-&status=collapse_imminent");
    const shown = (await chainIds(page)).sort();
    expect(shown).toEqual(["demo-facts-restored", "demo-semantic-void"]);

    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    expect(csv.suggestedFilename()).toMatch(/^floorline-chains-.*\.csv$/);
    const lines = readFileSync(await csv.path(), "utf8")
      .trim()
      .split("\r\n");
    expect(lines[0]?.startsWith("chain_id,content_class,statuses,pass_count")).toBe(true);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(",")[0])
        .sort(),
    ).toEqual(shown);

    await page.goto("/chains?q=demo-&status=floor_breached");
    const [json] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-json").click()]);
    const items = JSON.parse(readFileSync(await json.path(), "utf8")) as { chain_id: string }[];
    expect(items.map((c) => c.chain_id).sort()).toEqual((await chainIds(page)).sort());
    expect(items).toHaveLength(2);
  });

  test("pages with keyset cursors and comes back to the first page", async ({ page, request }) => {
    const prefix = `e2e-page-${Date.now()}`;
    const receipts = Array.from({ length: 30 }, (_, i) => ({
      chain_id: `${prefix}-${String(i).padStart(2, "0")}`,
      pass_id: "p1",
      pass_number: 1,
      current_content_hash: `h${i}`,
      current_size_bytes: 1000 + i,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
    }));
    expect((await request.post("/api/v1/passes", { data: { receipts } })).status()).toBe(201);

    await page.goto(`/chains?q=${prefix}&sort=min_size&limit=25`);
    await expect(page.getByTestId("chains-total")).toHaveText("30 chains match");
    const first = await chainIds(page);
    expect(first).toEqual(receipts.slice(0, 25).map((r) => r.chain_id));
    await expect(page.getByTestId("chains-prev")).toHaveCount(0);

    await page.getByTestId("chains-next").click();
    await expect(page).toHaveURL(/cursor=/);
    await expect.poll(() => chainIds(page)).toEqual(receipts.slice(25).map((r) => r.chain_id));
    await expect(page.getByTestId("chains-next")).toHaveCount(0);

    await page.getByTestId("chains-prev").click();
    await expect(page).toHaveURL(/dir=prev/);
    await expect.poll(() => chainIds(page)).toEqual(first);
  });
});

test.describe("chain page", () => {
  test("draws both curves with their floors, the max-pass limit, boundaries and the collapse marker", async ({
    page,
  }) => {
    await page.goto("/chains/demo-semantic-void");
    await expect(page.getByTestId("chain-id")).toHaveText("demo-semantic-void");
    // recharts draws only after hydration: these assertions run in the browser.
    for (const metric of ["size", "density"]) {
      const chart = page.getByTestId(`${metric}-chart`);
      await expect(chart.locator("path.recharts-line-curve")).toHaveCount(1);
      await expect(chart.getByTestId(`${metric}-collapse-marker`)).toContainText("collapse · pass 4");
      await expect(chart.getByTestId(`${metric}-floor`)).toBeVisible();
      await expect(chart.getByTestId(`${metric}-max-pass`)).toContainText("max pass 8");
      await expect(chart.getByTestId(`${metric}-boundary-marker`)).toContainText("halt");
    }
    await expect(page.getByTestId("size-chart").getByTestId("size-floor")).toContainText("400 B");
    await expect(page.getByTestId("density-chart").getByTestId("density-floor")).toContainText("0.450");

    const rows = page.getByTestId("passes-table").locator("tbody tr");
    await expect(rows).toHaveCount(5);
    await expect(rows.nth(3)).toContainText("collapse imminent");
    // The density is measured (docs/measurement.md): the row shows the directive the server gave.
    const stored = (await (await page.request.get("/api/v1/chains/demo-semantic-void")).json()) as {
      passes: { directive: string }[];
    };
    const directive = stored.passes[3]?.directive ?? "";
    expect(directive).toMatch(/^HALT: Density 0\.\d\d < 0\.45\.$/);
    await expect(rows.nth(3)).toContainText(directive);

    // The pass number is a link too, so a keyboard reaches the details.
    await rows.nth(3).getByRole("link", { name: "Open pass 4" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/pass=demo-semantic-void\.p4/);
    await expect(page.getByTestId("pass-detail")).toContainText("COLLAPSE_IMMINENT");
  });

  test("shows integrity findings and client mismatches where they occur, and a pass's fields when chosen", async ({
    page,
  }) => {
    await page.goto("/chains/demo-broken-receipts");
    await expect(page.getByTestId("size-chart").getByTestId("size-integrity-marker")).toHaveCount(2);
    await expect(page.getByTestId("size-chart").getByTestId("size-mismatch-marker")).toHaveCount(1);
    const row5 = page.getByTestId("passes-table").locator('tr[data-row-id="demo-broken-receipts.p5"]');
    await expect(row5.getByTestId("row-integrity")).toContainText("hash mismatch");
    await expect(row5.getByTestId("row-mismatch")).toBeVisible();

    await row5.click();
    await expect(page).toHaveURL(/pass=demo-broken-receipts\.p5/);
    const detail = page.getByTestId("pass-detail");
    // The restarted agent's guard judged pass 5 by the default floor (at most 4 passes).
    await expect(detail).toContainText("SAFE_TO_COMPRESS");
    await expect(detail).toContainText("COLLAPSE_IMMINENT");
    await expect(detail).toContainText("summary policy v1");
    await expect(row5).toHaveAttribute("data-selected", "true");
  });

  test("hovering a point shows that pass's verdict and directive", async ({ page }) => {
    await page.goto("/chains/demo-schema-truncation");
    const chart = page.getByTestId("density-chart");
    await expect(chart.locator("path.recharts-line-curve")).toHaveCount(1);
    const dots = chart.locator(".recharts-line-dots circle");
    await expect(dots).toHaveCount(6);
    await dots.nth(4).hover();
    const tooltip = page.getByTestId("chart-tooltip");
    await expect(tooltip).toContainText("Pass 5");
    await expect(tooltip).toContainText("floor breach");
    await expect(tooltip).toContainText("HALT: Pass demo-schema-truncation.p5 schema invalid.");
  });

  test("a new pass posted to the API appears on the open page without a reload", async ({ page, request }) => {
    const chainId = `e2e-live-${Date.now()}`;
    const receipt = (n: number) => ({
      chain_id: chainId,
      pass_id: `${chainId}.p${n}`,
      pass_number: n,
      current_content_hash: `h${n}`,
      input_content_hash: n > 1 ? `h${n - 1}` : null,
      current_size_bytes: 5000 - n * 1000,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
      content_class: "summary",
    });
    expect((await request.post("/api/v1/passes", { data: { receipts: [receipt(1), receipt(2)] } })).status()).toBe(201);
    await page.goto(`/chains/${chainId}`);
    await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    await expect(page.getByTestId("passes-table").locator("tbody tr")).toHaveCount(2);
    const marker = await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    expect(marker).toBe(true);

    expect((await request.post("/api/v1/passes", { data: receipt(3) })).status()).toBe(201);
    await expect(page.getByTestId("passes-table").locator("tbody tr")).toHaveCount(3);
    await expect(page.getByTestId("size-chart")).toHaveAttribute("data-points", "3");
    await expect(page.getByTestId("pass-count")).toHaveText("3 passes");
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  test("opens a chain whose id needs escaping in a URL", async ({ page, request }) => {
    const chainId = `e2e weird/ü #${Date.now()}%`;
    const posted = await request.post("/api/v1/passes", {
      data: {
        chain_id: chainId,
        pass_id: "p1",
        pass_number: 1,
        current_content_hash: "h1",
        current_size_bytes: 900,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.8,
      },
    });
    expect(posted.status()).toBe(201);
    await page.goto(`/chains?q=${encodeURIComponent(chainId)}`);
    await page.getByRole("link", { name: chainId, exact: true }).click();
    await expect(page.getByTestId("chain-id")).toHaveText(chainId);
    await expect(page.getByTestId("passes-table").locator("tbody tr")).toHaveCount(1);
  });

  test("links to the admissible action space of the chain", async ({ page }) => {
    await page.goto("/chains/demo-healthy-orders");
    await expect(
      page.getByRole("navigation", { name: "Chain views" }).getByRole("link", { name: "Admissible action space" }),
    ).toHaveAttribute("href", "/chains/demo-healthy-orders/action-space");
  });
});

test("an opaque compactor's chain draws its canary line beside size and density", async ({ page }) => {
  await page.goto("/chains/demo-opaque-canaries");
  const chart = page.getByTestId("canary-chart");
  await expect(chart.locator(".recharts-line-curve")).toHaveCount(1);
  await expect(chart).toHaveAttribute("data-points", "3");
  await expect(page.getByRole("heading", { name: "Canaries surviving over passes" })).toBeVisible();
  const data = page.getByTestId("canary-chart-data");
  await data.locator("summary").click();
  await expect(data.locator("tbody tr")).toHaveText([/^1\s*3\s*4\s*75%$/, /^2\s*1\s*4\s*25%$/, /^3\s*0\s*4\s*0%$/]);
  // Each canary at the pass it was lost.
  await expect(page.getByTestId("canary-findings").locator("li")).toHaveText([
    /did not survive pass 1\.$/,
    /did not survive pass 2\.$/,
    /did not survive pass 2\.$/,
    /did not survive pass 3\.$/,
  ]);
});
