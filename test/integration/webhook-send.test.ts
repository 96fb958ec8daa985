// One delivery attempt over real HTTP: the connection goes to the address that was checked,
// whatever the name would resolve to, and anything but a 2xx is a failure.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES, MAX_LOOKUPS, sendWebhook } from "@/db/workers/webhook-send";
import { startStuckReceiver } from "../support/receiver";

let port = 0;
const FLOOD_BYTES = 256 * 1024 * 1024;
const flood = { closedEarly: false };
const seen: { host?: string; body: string }[] = [];
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (c) => (body += c));
  request.on("end", () => {
    seen.push({ host: request.headers.host, body });
    if (request.url === "/redirect") {
      response.writeHead(302, { location: "http://169.254.169.254/" });
      return response.end();
    }
    if (request.url === "/slow") return setTimeout(() => response.end("late"), 2_000);
    if (request.url === "/flood" || request.url === "/ok-then-drip") {
      // An answer far larger than anyone would read; `flood.closedEarly` says the sender hung up.
      response.writeHead(request.url === "/flood" ? 500 : 200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      let written = 0;
      const pump = () => {
        while (written < FLOOD_BYTES) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      response.on("close", () => {
        flood.closedEarly = written < FLOOD_BYTES;
      });
      return pump();
    }
    response.writeHead(request.url === "/fail" ? 503 : 204);
    response.end(request.url === "/fail" ? "try later" : undefined);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("sendWebhook", () => {
  it("connects to the checked address and keeps the host name in the request", async () => {
    let lookups = 0;
    const result = await sendWebhook(
      `http://hooks.rebind.test:${port}/ok`,
      '{"a":1}',
      { "content-type": "application/json" },
      {
        allowPrivate: true,
        resolve: async () => {
          lookups++;
          return [{ address: "127.0.0.1", family: 4 }];
        },
      },
    );
    expect(result).toEqual({ ok: true, status: 204 });
    expect(lookups).toBe(1);
    expect(seen.at(-1)).toEqual({ host: `hooks.rebind.test:${port}`, body: '{"a":1}' });
  });

  it("refuses a name that resolves to a private address without the opt-in, sending nothing", async () => {
    const before = seen.length;
    const result = await sendWebhook(
      `http://hooks.rebind.test:${port}/ok`,
      "{}",
      {},
      {
        allowPrivate: false,
        resolve: async () => [
          { address: "93.184.216.34", family: 4 },
          { address: "127.0.0.1", family: 4 },
        ],
      },
    );
    expect(result).toMatchObject({ ok: false, status: null });
    expect(seen.length).toBe(before);
  });

  it("treats a non-2xx answer, a redirect and a timeout as failures", async () => {
    const options = { allowPrivate: true };
    expect(await sendWebhook(`http://127.0.0.1:${port}/fail`, "{}", {}, options)).toEqual({
      ok: false,
      status: 503,
      error: "the receiver answered 503: try later",
    });
    expect(await sendWebhook(`http://127.0.0.1:${port}/redirect`, "{}", {}, options)).toMatchObject({
      ok: false,
      status: 302,
    });
    expect(await sendWebhook(`http://127.0.0.1:${port}/slow`, "{}", {}, { ...options, timeoutMs: 300 })).toMatchObject({
      ok: false,
      status: null,
      error: expect.stringContaining("no answer"),
    });
  });

  it("gives an attempt one total deadline: a receiver that drips its answer cannot hold it", async () => {
    for (const mode of ["drip", "silent"] as const) {
      const stuck = await startStuckReceiver(mode, 100);
      try {
        const started = Date.now();
        const result = await sendWebhook(stuck.url, "{}", {}, { allowPrivate: true, timeoutMs: 1_000 });
        const took = Date.now() - started;
        expect(result, mode).toMatchObject({ ok: false, status: null, error: "no answer within 1 s" });
        expect(took, mode).toBeGreaterThanOrEqual(900);
        expect(took, mode).toBeLessThan(2_500);
        await expect.poll(() => stuck.closed, { timeout: 2_000 }).toBe(1);
      } finally {
        await stuck.close();
      }
    }
  });

  it("reads at most a little of a failed answer and none of a successful one", async () => {
    flood.closedEarly = false;
    const started = Date.now();
    const failed = await sendWebhook(`http://127.0.0.1:${port}/flood`, "{}", {}, { allowPrivate: true });
    expect(failed).toMatchObject({ ok: false, status: 500 });
    if (!failed.ok) expect(failed.error.length).toBeLessThanOrEqual(MAX_ANSWER_BYTES + 40);
    await expect.poll(() => flood.closedEarly, { timeout: 2_000 }).toBe(true);

    flood.closedEarly = false;
    const ok = await sendWebhook(`http://127.0.0.1:${port}/ok-then-drip`, "{}", {}, { allowPrivate: true });
    expect(ok).toEqual({ ok: true, status: 200 });
    await expect.poll(() => flood.closedEarly, { timeout: 2_000 }).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops an attempt at once when its signal aborts (the server is stopping)", async () => {
    const stuck = await startStuckReceiver("drip", 100);
    try {
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 300);
      const started = Date.now();
      const result = await sendWebhook(stuck.url, "{}", {}, { allowPrivate: true, signal: stop.signal });
      expect(result).toMatchObject({ ok: false, status: null, error: expect.stringContaining("shut down") });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await stuck.close();
    }
  });

  it("runs only a few name lookups at once, and a lookup that answers late costs only its attempt", async () => {
    let running = 0;
    let most = 0;
    // Name servers that answer only long after every attempt's deadline.
    const slow = async (): Promise<never> => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 1_000));
      running--;
      throw new Error("SERVFAIL");
    };
    // Each attempt ends at its deadline, and no more lookups than MAX_LOOKUPS ever start (the
    // rest wait their turn inside their own deadline).
    const stuck = await Promise.all(
      Array.from({ length: 6 }, () =>
        sendWebhook("http://hangs.test/", "{}", {}, { allowPrivate: true, timeoutMs: 300, resolve: slow }),
      ),
    );
    for (const result of stuck)
      expect(result).toMatchObject({ ok: false, status: null, error: "no answer within 0.3 s" });
    expect(most).toBe(MAX_LOOKUPS);
    // Once those lookups end, their places are free again.
    await expect.poll(() => running, { timeout: 3_000 }).toBe(0);
    expect(await sendWebhook(`http://127.0.0.1:${port}/ok`, "{}", {}, { allowPrivate: true })).toEqual({
      ok: true,
      status: 204,
    });
  });
});
