import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, test, type APIRequestContext } from "@playwright/test";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
// The server outlives a single test: every test writes content of its own.
const salt = () => randomBytes(6).toString("hex");

async function store(request: APIRequestContext, body: Record<string, unknown>): Promise<string> {
  const response = await request.post("/api/v1/originals", { data: body });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()).hash;
}

test("browse: counters above a server-filtered, sorted, keyset-paged table; the page itself counts nothing", async ({
  page,
  request,
}) => {
  const tool = `e2e.browse.${salt()}`;
  const texts = [`small ${tool}`, `medium ${tool} ${"m".repeat(200)}`, `large ${tool} ${"l".repeat(5000)}`] as const;
  const storeText = (original: string) =>
    store(request, { original, tool_name: tool, compressed: original.slice(0, 10) });
  // One after the other: the default sort is newest first.
  const hashes = [await storeText(texts[0]), await storeText(texts[1]), await storeText(texts[2])] as const;
  const [small, medium, large] = hashes;
  expect((await request.post("/api/v1/retrieve", { data: { hash: hashes[2].slice(0, 12) } })).status()).toBe(200);
  expect((await request.post("/api/v1/retrieve", { data: { hash: sha256(`never stored ${tool}`) } })).status()).toBe(
    404,
  );
  const stats = await (await request.get("/api/v1/originals/stats")).json();

  await page.goto(`/originals?tool_name=${encodeURIComponent(tool)}`);
  await expect(page.getByTestId("stat-retrieved")).toContainText(stats.totals.retrieved.toLocaleString("en-US"));
  await expect(page.getByTestId("stat-misses")).toContainText(`unknown ${stats.totals.misses.unknown}`);
  await expect(page.getByTestId("stat-tokens-net")).toBeVisible();
  await expect(page.getByTestId("ccr-hourly")).toBeVisible();

  const rows = page.getByTestId("originals-table").locator("tbody tr");
  await expect(rows).toHaveCount(3);
  // Newest first by default.
  await expect(rows.first()).toHaveAttribute("data-row-id", large);
  await expect(rows.first()).toContainText("live");
  await expect(rows.first().locator("td").nth(7)).toHaveText("1");

  await page.getByTestId("sort-size").click();
  await expect(page).toHaveURL(/sort=size&order=desc/);
  await page.getByTestId("sort-size").click();
  await expect(page).toHaveURL(/sort=size&order=asc/);
  await expect(rows.first()).toHaveAttribute("data-row-id", small);

  await page.goto(`/originals?tool_name=${encodeURIComponent(tool)}&sort=size&order=asc&limit=2`);
  await expect(rows).toHaveCount(2);
  const firstPage = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row-id")));
  await page.getByTestId("next-page").click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-row-id", large);
  expect(firstPage).toEqual([small, medium]);
  await expect(page.getByTestId("next-page")).toHaveCount(0);

  // The filter form round-trips through the URL.
  await page.goto("/originals");
  await page.getByLabel("Search").fill(medium.slice(0, 10));
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${medium.slice(0, 10)}`));
  await expect(rows).toHaveCount(1);
  await rows.first().getByTestId("original-link").click();
  await expect(page).toHaveURL(`/originals/${medium}`);

  // Browsing and viewing are not retrievals.
  const after = await (await request.get("/api/v1/originals/stats")).json();
  expect(after.totals.retrieved).toBe(stats.totals.retrieved);
});

test("detail: original and compressed side by side, foldable JSON, text never HTML, copy and download", async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const tag = salt();
  const original = JSON.stringify({
    tag,
    results: Array.from({ length: 150 }, (_, i) => ({
      id: i,
      title: `result ${i}`,
      html: `<img id="pwned-${i}" src=x onerror="document.title='pwned'">`,
    })),
    note: "<script>document.body.dataset.pwned = '1'</script>",
    banner: `<img id="pwned-top" src=x onerror="document.body.dataset.pwned='2'">`,
  });
  const compressed = JSON.stringify({ tag, results: [{ id: 0, title: "result 0" }], omitted: 149 });
  const hash = await store(request, {
    original,
    compressed,
    tool_name: "e2e.search",
    original_items: 150,
    compressed_items: 1,
  });

  // A marker's short key opens the entry under its full hash.
  await page.goto(`/originals/${hash.slice(0, 12)}`);
  await expect(page).toHaveURL(`/originals/${hash}`);
  await expect(page.getByTestId("original-hash")).toHaveText(hash);
  await expect(page.getByTestId("marker")).toHaveText(
    `[150 items compressed to 1. Retrieve more: hash=${hash.slice(0, 24)}]`,
  );

  const left = page.getByTestId("pane-original");
  const right = page.getByTestId("pane-compressed");
  await expect(left.getByTestId("json-tree")).toContainText(`"tag": "${tag}"`);
  await expect(right.getByTestId("json-tree")).toContainText(`"omitted": 149`);
  const [leftBox, rightBox] = [await left.boundingBox(), await right.boundingBox()];
  if (!leftBox || !rightBox) throw new Error("both panes must be on screen");
  expect(rightBox.x).toBeGreaterThan(leftBox.x + leftBox.width - 1);
  expect(Math.abs(rightBox.y - leftBox.y)).toBeLessThan(2);

  // Stored markup is text on the page, never elements.
  await expect(left.getByTestId("json-tree")).toContainText("<script>document.body.dataset.pwned");
  await expect(left.getByTestId("json-tree")).toContainText('<img id=\\"pwned-top\\"');
  await expect(page.locator("#pwned-top")).toHaveCount(0);

  // Folding: "results" opens at depth 1, shows its children a hundred at a time.
  const results = left.getByRole("button", { name: "Collapse root.results" });
  await expect(results).toHaveAttribute("aria-expanded", "true");
  await expect(left.getByRole("button", { name: /Show 50 more/ })).toBeVisible();
  await results.click();
  await expect(left.getByRole("button", { name: "Expand root.results" })).toHaveAttribute("aria-expanded", "false");
  await expect(left.getByTestId("json-tree")).toContainText("150 items");
  await expect(left.getByTestId("json-tree")).not.toContainText("result 3");

  // The text view shows the content exactly as stored.
  await left.getByRole("button", { name: "Text" }).click();
  await expect(left.getByTestId("content-text")).toHaveText(original);
  await expect(page.locator("#pwned-top, #pwned-0, #pwned-149")).toHaveCount(0);
  expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined();
  await expect(page).not.toHaveTitle("pwned");

  await left.getByRole("button", { name: "Copy" }).click();
  await expect(left.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(original);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    left.getByRole("link", { name: "Download" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${hash.slice(0, 16)}.json`);
  expect(await readFile(await download.path(), "utf8")).toBe(original);

  // Viewing, copying and downloading here are not retrievals.
  const listed = await (await request.get(`/api/v1/originals?q=${hash.slice(0, 16)}`)).json();
  expect(listed.items[0].retrieval_count).toBe(0);
});

test("detail: a multi-MiB original is paged, never loaded into the page whole", async ({ page, request }) => {
  const line = (i: number) => `${String(i).padStart(6, "0")} ${"log line padding ".repeat(5)}\n`;
  const original = Array.from({ length: 30_000 }, (_, i) => line(i)).join("") + salt();
  const hash = await store(request, { original, compressed: "30000 log lines", tool_name: "e2e.log" });
  await page.goto(`/originals/${hash}`);
  const left = page.getByTestId("pane-original");
  const pages = Math.ceil(original.length / (64 * 1024));
  await expect(left.getByTestId("page-indicator")).toHaveText(`Page 1 of ${pages}`);
  const first = await left.getByTestId("content-text").textContent();
  expect(first).toBe(original.slice(0, 64 * 1024));
  await left.getByRole("button", { name: "Next" }).click();
  await expect(left.getByTestId("page-indicator")).toHaveText(`Page 2 of ${pages}`);
  await expect(left.getByTestId("content-text")).toHaveText(original.slice(64 * 1024, 128 * 1024));
  await left.getByRole("button", { name: "Last" }).click();
  await expect(left.getByTestId("content-text")).toHaveText(original.slice((pages - 1) * 64 * 1024));
  // Only one page of text is in the DOM.
  // innerText, not textContent: what the page shows, without the text of its inline scripts.
  // biome-ignore lint/performance/useDomNodeTextContent: see above
  const inDom = await page.evaluate(() => document.body.innerText.length);
  expect(inDom).toBeLessThan(200_000);
});

test("an expired original keeps a tombstone page and answers 410, saying not to retry", async ({ page, request }) => {
  const hash = await store(request, { original: `short-lived ${salt()}`, ttl_seconds: 1 });
  await page.waitForTimeout(1_200);
  const miss = await request.post("/api/v1/retrieve", { data: { hash } });
  expect(miss.status()).toBe(410);
  const body = await miss.json();
  expect(body.error.code).toBe("expired");
  expect(body.error.message).toContain("will not help");
  await page.goto(`/originals/${hash}`);
  await expect(page.getByTestId("tombstone")).toContainText("Expired at");
  await expect(page.getByTestId("tombstone")).toContainText("TTL of 1 s ran out");
  await expect(page.getByTestId("side-by-side")).toHaveCount(0);
  await page.goto(`/originals?status=expired&q=${hash.slice(0, 16)}`);
  await expect(page.getByTestId("originals-table").locator("tbody tr").first()).toContainText("expired");
});

async function restoreChain(request: APIRequestContext) {
  const chainId = `e2e-restore-${salt()}`;
  const source = JSON.stringify({
    chainId,
    rows: Array.from({ length: 40 }, (_, i) => ({ id: i, sku: `S-${i}`, qty: i % 5 })),
  });
  const pass1 = JSON.stringify({ chainId, rows: Array.from({ length: 40 }, (_, i) => ({ id: i, sku: `S-${i}` })) });
  const pass2 = JSON.stringify({ chainId, rows: 40 });
  const receipt = (n: number, input: string, output: string, density: number) => ({
    chain_id: chainId,
    pass_id: `${chainId}.p${n}`,
    pass_number: n,
    input_content_hash: sha256(input),
    current_content_hash: sha256(output),
    current_size_bytes: 4096,
    is_parseable: true,
    schema_valid: n === 1,
    semantic_density_score: density,
  });
  const passes = await request.post("/api/v1/passes", {
    data: { receipts: [receipt(1, source, pass1, 0.9), receipt(2, pass1, pass2, 0.2)] },
  });
  expect(passes.status(), await passes.text()).toBe(201);
  const boundary = await request.post("/api/v1/boundaries", {
    data: {
      chain_id: chainId,
      pass_number: 2,
      strategy: "restore",
      reason: "pass 2 dropped the skus",
      restore_pass_id: `${chainId}.p1`,
    },
  });
  expect(boundary.status(), await boundary.text()).toBe(201);
  // Pass 2's original is pass 1's output: what restoring pass 1 brings back.
  const restored = await store(request, {
    original: pass1,
    compressed: pass2,
    chain_id: chainId,
    pass_id: `${chainId}.p2`,
  });
  return { chainId, restored };
}

test("a restore boundary on the chain page links to the original it restores, one click away", async ({
  page,
  request,
}) => {
  const { chainId, restored } = await restoreChain(request);
  await page.goto(`/chains/${chainId}`);
  const link = page.locator(`a[href="/originals/${restored}"]`).first();
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(`/originals/${restored}`);
  await expect(page.getByTestId("original-hash")).toHaveText(restored);
  await expect(page.getByTestId("pane-original").getByTestId("json-tree")).toContainText(`"chainId": "${chainId}"`);
});

test("an original links back to the chain it came from and to every pass whose hashes match", async ({
  page,
  request,
}) => {
  const { chainId, restored } = await restoreChain(request);
  await page.goto(`/originals/${restored}`);
  // The recorded source (pass 2) is confirmed by its receipt; the other pass is listed once, apart.
  await expect(page.getByTestId("provenance-source")).toHaveAttribute("data-check", "confirmed");
  await expect(page.getByTestId("provenance-source")).toContainText("Confirmed: that pass’s receipt names this hash");
  const matching = page.getByTestId("matching-passes");
  await expect(matching.locator("li")).toHaveCount(1);
  await expect(matching.locator("li").nth(0)).toContainText("pass 1");
  await expect(matching.locator("li").nth(0)).toContainText("produced this content");
  await page.getByTestId("source-chain-link").click();
  await expect(page).toHaveURL(`/chains/${chainId}?pass=${encodeURIComponent(`${chainId}.p2`)}`);
});

test("the demo's restore boundary links to the restored pass's own output", async ({ page }) => {
  // What a restore rolls back to is the restored pass's output: the demo caches exactly that
  // content, so the original's page confirms the hash its link was found by.
  await page.goto("/chains/demo-schema-truncation");
  const link = page.getByRole("link", { name: "cached original" }).first();
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/originals\/[0-9a-f]{64}$/);
  await expect(page.getByText("demo-schema-truncation.p4").first()).toBeVisible();
  await expect(page.getByTestId("provenance-source")).toHaveAttribute("data-check", "confirmed");
  await expect(page.getByTestId("provenance-source")).toContainText("names this hash as its output");
  // Pass 5 compressed it past the schema: the breach the restore answered.
  const matching = page.getByTestId("matching-passes");
  await expect(matching.locator("li", { hasText: "demo-schema-truncation.p5" })).toContainText(
    "compressed this original",
  );
  // The loss: what pass 5 made of it, the sku the schema requires.
  await expect(page.getByTestId("loss-paths")).toContainText("items[].sku dropped in all 96 items");
});

test("stored content answered as text keeps its own sandbox policy; so does the API reference", async ({ request }) => {
  const hash = await store(request, { original: `<script>alert(1)</script> ${salt()}`, compressed: "x" });
  for (const path of [`/originals/${hash}/content`, `/api/v1/originals/${hash}?raw=1`]) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    expect(response.headers()["content-type"], path).toContain("text/plain");
    // One policy, the route's: the app's page policy (scripts from this origin) must not replace it.
    expect(response.headers()["content-security-policy"], path).toBe("default-src 'none'; sandbox");
  }
  const reference = await request.get("/docs/api");
  const policy = reference.headers()["content-security-policy"] ?? "";
  const directive = (name: string) =>
    policy
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith(`${name} `));
  // The reference's own: no inline script (the app's generic policy allows it), workers from blobs.
  expect(directive("script-src")).toBe("script-src 'self'");
  expect(directive("worker-src")).toBe("worker-src 'self' blob:");
});
