// Webhooks end to end: the built app, a real HTTP receiver on a loopback port, signatures
// checked as a receiver would, a receiver that fails and recovers, and an app restarted
// between two attempts of one delivery.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { verifySignature } from "@/lib/webhooks/signature";
import { type AppServer, freePort, postJson, startApp } from "../support/app-server";
import { nth, type Received, type Receiver, startReceiver, startStuckReceiver } from "../support/receiver";
import { settled } from "./settled";

const receipt = (chain: string, n: number, density: number) => ({
  chain_id: chain,
  pass_id: `${chain}.p${n}`,
  pass_number: n,
  current_content_hash: `${chain}-h${n}`,
  input_content_hash: n > 1 ? `${chain}-h${n - 1}` : undefined,
  current_size_bytes: 4096,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: density,
});

const eventsOf = (received: Received[], type: string) =>
  received.filter((r) => r.headers["x-floorline-event"] === type).map((r) => ({ ...r, json: JSON.parse(r.body) }));

function signed(secret: string, r: Received): boolean {
  return verifySignature(
    secret,
    { timestamp: String(r.headers["x-floorline-timestamp"]), signature: String(r.headers["x-floorline-signature"]) },
    r.body,
  );
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.describe.configure({ mode: "serial" });

test("private targets are refused without FLOORLINE_WEBHOOK_ALLOW_PRIVATE", async ({ request }) => {
  // The suite's main server runs without the opt-in.
  for (const url of [
    "http://127.0.0.1:9/hook",
    "http://localhost:9/hook",
    "http://[::1]:9/",
    "http://169.254.169.254/",
    "http://[::ffff:0:127.0.0.1]:9/",
    "http://[64:ff9b:1::a00:1]/",
    "http://[2001::1]/",
  ]) {
    const answer = await request.post("/api/v1/webhooks", { data: { url, events: ["chain.collapsed"] } });
    expect(answer.status(), url).toBe(422);
    const body = await answer.json();
    expect(body.error.issues[0].path).toBe("url");
  }
  // Which address an internal name resolves to stays with the server.
  const named = await request.post("/api/v1/webhooks", {
    data: { url: "http://localhost:9/hook", events: ["chain.collapsed"] },
  });
  expect(named.status()).toBe(422);
  expect(await named.text()).not.toMatch(/127\.0\.0\.1|::1|7f00/);
});

test.describe("with a loopback receiver", () => {
  let app: AppServer;
  let receiver: Receiver;
  let dataDir: string;
  let secret: string;
  let webhookId: string;
  // One port for the whole suite: the app restarts on it, and delivery links name it.
  let APP_PORT: number;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-webhooks-"));
    APP_PORT = await freePort();
    receiver = await startReceiver();
    // The tests' own receiver listens on loopback: they opt in, as an operator would.
    app = await startApp({ port: APP_PORT, dataDir, env: { FLOORLINE_WEBHOOK_ALLOW_PRIVATE: "1" } });
    const created = await postJson(`${app.base}/api/v1/webhooks`, {
      url: receiver.url,
      events: ["chain.collapsed", "chain.integrity_finding", "pass.client_mismatch", "trace.rejected"],
    });
    expect(created.status).toBe(201);
    ({ id: webhookId, secret } = await created.json());
  });

  test.afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("a collapsing chain gives exactly one signed chain.collapsed per chain; a 422 batch emits nothing", async () => {
    test.setTimeout(120_000);
    // Chain A collapses in its second batch and stays collapsed in its third.
    expect(
      (await postJson(`${app.base}/api/v1/passes`, { receipts: [receipt("wh-a", 1, 0.9), receipt("wh-a", 2, 0.8)] }))
        .status,
    ).toBe(201);
    expect(
      (await postJson(`${app.base}/api/v1/passes`, { receipts: [receipt("wh-a", 3, 0.3), receipt("wh-a", 4, 0.2)] }))
        .status,
    ).toBe(201);
    expect((await postJson(`${app.base}/api/v1/passes`, receipt("wh-a", 5, 0.1))).status).toBe(201);
    // Chain B collapses twice within one batch; the same batch sent again writes nothing.
    const b = { receipts: [receipt("wh-b", 1, 0.9), receipt("wh-b", 2, 0.3), receipt("wh-b", 3, 0.2)] };
    expect((await postJson(`${app.base}/api/v1/passes`, b)).status).toBe(201);
    expect((await postJson(`${app.base}/api/v1/passes`, b)).status).toBe(200);
    // Chain C would collapse, but its batch has an invalid receipt: nothing is written or sent.
    const rejected = await postJson(`${app.base}/api/v1/passes`, {
      receipts: [receipt("wh-c", 1, 0.1), { ...receipt("wh-c", 2, 0.1), semantic_density_score: 7 }],
    });
    expect(rejected.status).toBe(422);

    await expect.poll(() => eventsOf(receiver.received, "chain.collapsed").length, { timeout: 30_000 }).toBe(2);
    await settle(3_000);
    const collapsed = eventsOf(receiver.received, "chain.collapsed");
    expect(collapsed.map((e) => e.json.data.chain_id).sort()).toEqual(["wh-a", "wh-b"]);
    for (const e of collapsed) {
      expect(signed(secret, e)).toBe(true);
      expect(signed("not the secret", e)).toBe(false);
      expect(e.headers["x-floorline-delivery"]).toBe(e.json.id);
      expect(e.json.url).toBe(`${app.base}/chains/${e.json.data.chain_id}`);
    }
    expect(collapsed.find((e) => e.json.data.chain_id === "wh-a")?.json.data).toMatchObject({
      pass_id: "wh-a.p3",
      pass_number: 3,
      verdict: "COLLAPSE_IMMINENT",
      content_class: "default",
    });
    expect(receiver.received.some((r) => r.body.includes("wh-c"))).toBe(false);
  });

  test("a receiver that fails gets the delivery later, even across an app restart", async () => {
    test.setTimeout(180_000);
    receiver.answer(500);
    const before = receiver.received.length;
    expect((await postJson(`${app.base}/api/v1/passes`, receipt("wh-restart", 5, 0.1))).status).toBe(201);
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBeGreaterThan(before);
    const first = nth(receiver.received, before);
    expect(JSON.parse(first.body).data.chain_id).toBe("wh-restart");

    // The app goes down between the failed attempt and the retry; the receiver recovers.
    expect(await app.stop()).toBe(0);
    receiver.answer(200);
    app = await startApp({ port: APP_PORT, dataDir, env: { FLOORLINE_WEBHOOK_ALLOW_PRIVATE: "1" } });

    const delivery = first.headers["x-floorline-delivery"];
    await expect
      .poll(() => receiver.received.filter((r) => r.headers["x-floorline-delivery"] === delivery).length, {
        timeout: 60_000,
      })
      .toBe(2);
    const retry = nth(
      receiver.received.filter((r) => r.headers["x-floorline-delivery"] === delivery),
      1,
    );
    expect(retry.body).toBe(first.body);
    expect(signed(secret, retry)).toBe(true);
    expect(retry.at - first.at).toBeGreaterThan(5_000);

    const log = await (await fetch(`${app.base}/api/v1/webhooks/${webhookId}/deliveries`)).json();
    const row = log.items.find((d: { event_id: string }) => d.event_id === delivery);
    expect(row).toMatchObject({ status: "delivered", attempts: 2, last_status: 200, next_attempt_at: null });
  });

  test("the Webhooks page adds, tests, pauses and deletes, and shows the delivery log", async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto(`${app.base}/webhooks`);
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await settled(page);

    const form = page.getByRole("form", { name: "Add a webhook" });
    await form.getByLabel("URL").fill(`${receiver.url}?from=page`);
    await form.getByLabel("trace.rejected").check();
    await form.getByRole("button", { name: "Add webhook" }).click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);

    const row = page.getByRole("row").filter({ hasText: "?from=page" });
    await expect(row).toBeVisible();
    await row.getByRole("button", { name: "Send test event" }).click();
    await expect(row.getByRole("status")).toHaveText("Test event queued.");
    await expect.poll(() => eventsOf(receiver.received, "webhook.test").length, { timeout: 30_000 }).toBe(1);

    // The URL is a plain link: a full page load, whose buttons do nothing until it hydrates.
    await row.getByRole("link").click();
    const log = page.getByTestId("deliveries-table");
    await expect(log.getByRole("row").filter({ hasText: "webhook.test" })).toContainText("delivered");
    await settled(page);

    await row.getByRole("button", { name: "Pause" }).click();
    await expect(row.getByRole("cell", { name: "paused" })).toBeVisible();
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("row").filter({ hasText: "?from=page" })).toHaveCount(0);
  });

  test("a receiver that never finishes holds back only its own deliveries, and the app still stops", async () => {
    test.setTimeout(120_000);
    const stuck = await startStuckReceiver("drip", 1_000);
    try {
      const created = await postJson(`${app.base}/api/v1/webhooks`, { url: stuck.url, events: ["chain.collapsed"] });
      expect(created.status).toBe(201);
      const { id: stuckId } = await created.json();
      // More queued for the stuck receiver than the worker sends at once, all before the other's.
      for (let i = 0; i < 20; i++) {
        expect((await postJson(`${app.base}/api/v1/webhooks/${stuckId}/test`, {})).status).toBe(202);
      }
      await expect.poll(() => stuck.connections, { timeout: 30_000 }).toBeGreaterThan(0);
      const before = eventsOf(receiver.received, "webhook.test").length;
      expect((await postJson(`${app.base}/api/v1/webhooks/${webhookId}/test`, {})).status).toBe(202);
      await expect.poll(() => eventsOf(receiver.received, "webhook.test").length, { timeout: 30_000 }).toBe(before + 1);
      // Delivered while the stuck attempts are still open, and only a couple of them at once.
      expect(stuck.closed).toBe(0);
      expect(stuck.connections).toBeLessThanOrEqual(2);

      // Stopping does not wait on the stuck receiver beyond its bound.
      const started = Date.now();
      const code = await Promise.race([app.stop(), settle(30_000).then(() => "still running")]);
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(15_000);
      await expect.poll(() => stuck.closed, { timeout: 5_000 }).toBe(stuck.connections);
    } finally {
      await stuck.close();
    }
  });
});
