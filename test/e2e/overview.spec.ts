import { expect, test } from "@playwright/test";

test("the overview shows the headline figures, collapse rates per class and the latest collapse points", async ({
  page,
  request,
}) => {
  // A chain of this test's own that collapses now (it goes on under the floor of pass 2), so it
  // leads the latest collapse points whatever the other specs add (the demo's are hours old);
  // and one the guard saves now (a halt at that floor), which must not be listed among them.
  const own = `e2e-overview-${Date.now()}`;
  const saved = `${own}-saved`;
  const receipt = (chain: string, n: number, density: number) => ({
    chain_id: chain,
    pass_id: `${chain}.p${n}`,
    pass_number: n,
    input_content_hash: n > 1 ? `h${n - 1}` : null,
    current_content_hash: `h${n}`,
    current_size_bytes: 5000 - n * 1000,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: density,
    content_class: "summary",
  });
  const posted = await request.post("/api/v1/passes", {
    data: { receipts: [receipt(saved, 1, 0.9), receipt(saved, 2, 0.31)] },
  });
  expect(posted.status()).toBe(201);
  const halt = { chain_id: saved, pass_number: 2, strategy: "halt", reason: "HALT: Density 0.31 < 0.45." };
  expect((await request.post("/api/v1/boundaries", { data: halt })).status()).toBe(201);
  const failing = [receipt(own, 1, 0.9), receipt(own, 2, 0.31), receipt(own, 3, 0.3)];
  expect((await request.post("/api/v1/passes", { data: { receipts: failing } })).status()).toBe(201);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // Every figure but passes counts chains, all of them in the range, and other specs add
  // theirs to this server while this runs: so each figure is followed to the list of what it
  // counts (operator-questions.spec.ts checks that they agree), filtered to the demo's chains.
  const DEMO_COUNTED: Record<string, string[]> = {
    chains: [
      "demo-broken-receipts",
      "demo-claimed-density",
      "demo-content-check",
      "demo-encoding-degradation",
      "demo-facts-restored",
      "demo-healthy-orders",
      "demo-nested-marker",
      "demo-opaque-canaries",
      "demo-schema-truncation",
      "demo-semantic-void",
    ],
    // Saves and failures apart: the agents that went on past their floor, and the one that
    // accepted the loss through a boundary.
    chains_collapsed: ["demo-schema-truncation", "demo-semantic-void"],
    chains_guarded: ["demo-encoding-degradation", "demo-facts-restored"],
    chains_floor_breached: ["demo-encoding-degradation", "demo-schema-truncation"],
    chains_client_mismatch: ["demo-broken-receipts", "demo-schema-truncation"],
    // Canary loss is an integrity finding of the chain's own (docs/canaries.md).
    chains_broken_integrity: [
      "demo-broken-receipts",
      "demo-opaque-canaries",
      "demo-schema-truncation",
      "demo-semantic-void",
    ],
    chains_continued_after_halt: ["demo-semantic-void"],
    chains_restore_not_honoured: ["demo-schema-truncation"],
    // The server's checks of their content disagree with what the agents claimed.
    chains_measurement_mismatch: ["demo-claimed-density", "demo-content-check"],
  };
  for (const [key, demo] of Object.entries(DEMO_COUNTED)) {
    const figure = page.getByTestId(`figure-${key}`);
    const shown = Number(((await figure.locator(".value").textContent()) ?? "").replace(/,/g, ""));
    const href = (await figure.getAttribute("href")) ?? "";
    const query = new URL(href, "http://x").searchParams;
    query.set("q", "demo-");
    query.set("limit", "500");
    const listed = (await (await page.request.get(`/api/v1/chains?${query}`)).json()) as {
      items: { chain_id: string }[];
    };
    expect(listed.items.map((c) => c.chain_id).sort(), key).toEqual(demo);
    expect(shown, key).toBeGreaterThanOrEqual(demo.length);
  }
  // The demo's nested marker (docs/markers.md): its figure opens the chains with broken markers.
  const markers = page.getByTestId("figure-broken-markers");
  await expect(markers).toHaveClass(/\balert\b/);
  const markerQuery = new URL((await markers.getAttribute("href")) ?? "", "http://x").searchParams;
  expect(markerQuery.get("status")).toBe("broken_markers");
  markerQuery.set("q", "demo-");
  const broken = (await (await page.request.get(`/api/v1/chains?${markerQuery}`)).json()) as {
    items: { chain_id: string }[];
  };
  expect(broken.items.map((c) => c.chain_id)).toEqual(["demo-nested-marker"]);
  await expect(page.getByTestId("figure-broken-markers-kinds")).toContainText("marker nested");
  // The demo's opaque compactor lost every canary it was given (docs/canaries.md).
  const canaries = page.getByTestId("figure-canaries");
  await expect(canaries).toHaveClass(/\balert\b/);
  await expect(page.getByTestId("figure-canaries-split")).toContainText(/[1-9][0-9,]* all lost/);
  // The save reads as one: in the safe colour, not the alarm of a collapse.
  await expect(page.getByTestId("figure-chains_guarded")).toHaveClass(/\bsaved\b/);
  await expect(page.getByTestId("figure-chains_collapsed")).toHaveClass(/\balert\b/);

  const chart = page.getByTestId("collapse-rate-chart");
  // Few periods with data draw as bars, many as lines.
  await expect(chart.locator("path.recharts-line-curve, .recharts-bar-rectangle").first()).toBeAttached();
  // The legend names the classes the chart's summary counts, the busiest ones by name and the
  // rest as "other classes" (which classes are busiest depends on what other specs sent).
  const summary = (await page.locator("figure", { has: chart }).locator("figcaption").textContent()) ?? "";
  const named = [...summary.matchAll(/(?::|;) ([^;]+?) \d+ of \d+ collapsed/g)].map((m) => String(m[1])).sort();
  expect(named.length).toBeGreaterThanOrEqual(2);
  expect(named.some((c) => c === "api-json" || c === "other classes")).toBe(true);
  await expect
    .poll(async () => (await chart.locator(".recharts-legend-item .legend-text").allInnerTexts()).sort())
    .toEqual(named);

  const recent = page.getByTestId("recent-collapses");
  await expect(recent.getByRole("link", { name: own, exact: true })).toBeVisible();
  // Failures first: whatever else is listed, the first entries are collapses, ours among them,
  // and the save is not listed but counted apart, with a link to the saves.
  const outcomes = await recent
    .locator("li")
    .evaluateAll((items) => items.map((li) => li.getAttribute("data-outcome")));
  expect(
    outcomes.indexOf("unanswered") === -1 || outcomes.lastIndexOf("collapsed") < outcomes.indexOf("unanswered"),
  ).toBe(true);
  await expect(recent.locator(`li[data-outcome="collapsed"]`, { hasText: own })).toHaveCount(1);
  await expect(recent.getByRole("link", { name: saved })).toHaveCount(0);
  const saves = page.getByTestId("recent-saves");
  await expect(saves).toContainText("guarded in this range, not listed");
  await expect(saves.getByRole("link")).toHaveAttribute("href", "/chains?status=guarded&range=7d");
  await recent.getByRole("link", { name: own, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/chains/${own}\\?pass=${own}\\.p2&from=2$`));
  await expect(page.getByTestId("pass-detail")).toContainText("HALT: Density 0.31 < 0.45.");
});

test("the time range is part of the URL and changes what is counted", async ({ page }) => {
  await page.goto("/");
  const range = page.getByTestId("range");
  await expect(range.getByRole("link", { name: "7 days" })).toHaveAttribute("aria-current", "true");
  await range.getByRole("link", { name: "All time" }).click();
  await expect(page).toHaveURL(/\?range=all$/);
  await expect(range.getByRole("link", { name: "All time" })).toHaveAttribute("aria-current", "true");
  await expect(page.getByTestId("figure-passes")).toBeVisible();

  // The demo's passes are minutes to hours old: none fall in a range that ended before them.
  await page.goto("/?range=24h");
  expect(
    Number(((await page.getByTestId("figure-passes").locator(".value").textContent()) ?? "").replace(/,/g, "")),
  ).toBeGreaterThanOrEqual(25);
});
