// Marker findings where an operator looks (docs/markers.md): the demo's nested marker on its chain
// page, a marker naming no original found for a chain sent now, the chains list's
// broken_markers filter and the overview's figure that opens it.
import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";
import { settled } from "./settled";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

test("the chain page lists the demo chain's dead-end nested marker and the one sent without a retrieve tool", async ({
  page,
}) => {
  await page.goto("/chains/demo-nested-marker");
  await settled(page);
  const section = page.getByTestId("marker-findings");
  await expect(section).toContainText("2 findings: compression markers of this chain that lead nowhere");
  await expect(section.locator("li[data-kind='marker_nested']")).toHaveCount(1);
  const withoutTool = section.locator("li[data-kind='marker_without_tool']");
  await expect(withoutTool).toContainText("pass 3");
  await expect(withoutTool).toContainText("no retrieve tool");
  // The pass opens its detail; the hash the original it names.
  await expect(withoutTool.getByRole("link", { name: "pass 3" })).toHaveAttribute(
    "href",
    "/chains/demo-nested-marker?pass=demo-nested-marker.p3",
  );
  await expect(withoutTool.locator("a.mono")).toHaveAttribute("href", /^\/originals\/[0-9a-f]{24}$/);
});

test("a marker naming no original is found as the receipt arrives, and filtered and counted", async ({
  page,
  request,
}) => {
  const chainId = `e2e-marker-${Date.now()}`;
  const content = "The build failed. [Retrieve more: hash=00ff00ff00ff00ff00ff00ff]";
  const answer = await request.post("/api/v1/passes", {
    data: {
      chain_id: chainId,
      pass_id: `${chainId}.p1`,
      pass_number: 1,
      current_content_hash: sha(content),
      current_size_bytes: Buffer.byteLength(content),
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.9,
      content,
    },
  });
  expect(answer.status()).toBe(201);
  await page.goto(`/chains/${chainId}`);
  await settled(page);
  const finding = page.getByTestId("marker-findings").locator("li[data-kind='marker_unknown']");
  await expect(finding).toContainText("00ff00ff00ff00ff");
  await expect(finding).toContainText("names no original this store holds");

  await page.goto(`/chains?status=broken_markers&q=${chainId}`);
  await expect(page.getByTestId("chains-table").locator("tbody tr a.chain-link")).toHaveText([chainId]);

  await page.goto("/?range=24h");
  const figure = page.getByTestId("figure-broken-markers");
  await expect(figure).toHaveAttribute("href", "/chains?status=broken_markers&range=24h");
  await expect(page.getByTestId("figure-broken-markers-kinds")).toContainText("marker unknown");
  await figure.click();
  await expect(page).toHaveURL(/status=broken_markers/);
  await expect(page.getByTestId("chains-table")).toContainText(chainId);
});
