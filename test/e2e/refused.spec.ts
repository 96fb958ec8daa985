// Refused receipts on the chain page (docs/ingest.md, "Refused receipts"): a receipt the API
// refused leaves no pass, so the page lists it with the answer the agent got, on a chain that
// has passes and on one none of whose receipts was taken.
import { expect, test } from "@playwright/test";
import { settled } from "./settled";

const receipt = (chainId: string, n: number, extra: Record<string, unknown> = {}) => ({
  chain_id: chainId,
  pass_id: `${chainId}.p${n}`,
  pass_number: n,
  current_content_hash: `h${n}`,
  current_size_bytes: 9000 - n * 100,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  ...extra,
});

test("the chain page lists the chain's refused receipts with the answer each got", async ({ page, request }) => {
  const chainId = `e2e-refused-${Date.now()}`;
  expect((await request.post("/api/v1/passes", { data: receipt(chainId, 1) })).status()).toBe(201);
  // A retry with another body, and a misspelt field.
  expect(
    (await request.post("/api/v1/passes", { data: receipt(chainId, 1, { current_size_bytes: 1 }) })).status(),
  ).toBe(409);
  expect((await request.post("/api/v1/passes", { data: receipt(chainId, 2, { content_clas: "json" }) })).status()).toBe(
    422,
  );
  await page.goto(`/chains/${chainId}`);
  await settled(page);
  const refused = page.getByTestId("refused-receipts");
  await expect(refused).toContainText("2 receipts of this chain were refused");
  await expect(refused.locator("li[data-code='idempotency_conflict']")).toContainText(`${chainId}.p1`);
  await expect(refused.locator("li[data-code='validation_failed']")).toContainText("content_clas");

  // A chain none of whose receipts was taken waits for one, and says what was refused.
  const never = `e2e-never-${Date.now()}`;
  expect((await request.post("/api/v1/passes", { data: receipt(never, 1, { content_clas: "json" }) })).status()).toBe(
    422,
  );
  await page.goto(`/chains/${never}`);
  await expect(page.getByTestId("chain-waiting")).toBeVisible();
  await expect(page.getByTestId("refused-receipts")).toContainText("One receipt of this chain was refused");
});
