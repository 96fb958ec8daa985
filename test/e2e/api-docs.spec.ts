// The API reference renders from the app's own origin: the script, the document, nothing
// else. Any request elsewhere fails the test (Chromium resolves no other host anyway).
import { expect, test } from "@playwright/test";

test("/docs/api renders the generated reference without any request off this origin", async ({ page, baseURL }) => {
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  const response = await page.goto("/docs/api");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
  await expect(page.getByText("Floorline API").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Evaluate passes with the collapse guard (stateless)").first()).toBeVisible();
  // Groups open from the sidebar; their operations come from the generated document.
  const sidebar = page.getByRole("navigation").first();
  await sidebar.getByText("Receipts", { exact: true }).click();
  await expect(page.getByText("Ingest compression-pass receipts").first()).toBeVisible();
  await sidebar.getByText("Webhooks", { exact: true }).click();
  await expect(page.getByText("Create a webhook").first()).toBeVisible();
  // The reference keeps a connection open (it never goes network-idle): give late requests time.
  await page.waitForTimeout(3_000);
  const origin = baseURL ?? "http://127.0.0.1";
  const foreign = requests.filter((url) => !url.startsWith(origin) && !/^(data|blob):/.test(url));
  expect(foreign).toEqual([]);
  expect(requests.some((url) => url.includes("/api/v1/openapi.json"))).toBe(true);
  expect(requests.some((url) => url.includes("/docs/api/scalar.js"))).toBe(true);
});

test("the reference's script is served from the app with a long cache", async ({ request }) => {
  const response = await request.get("/docs/api/scalar.js?v=1");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("javascript");
  expect(response.headers()["cache-control"]).toContain("immutable");
  expect((await response.body()).length).toBeGreaterThan(1_000_000);
});
