import { expect, test } from "@playwright/test";

test("the server is up on the embedded database with demo data", async ({ request }) => {
  const health = await request.get("/api/v1/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: "ok", database: "ok" });
  // Other specs add newer chains to the shared server: look past the first page.
  const chains = await request.get("/api/v1/chains?limit=500");
  const body = await chains.json();
  expect(body.items.map((c: { chain_id: string }) => c.chain_id)).toContain("demo-semantic-void");
});
