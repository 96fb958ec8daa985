// One delivery attempt over real HTTP: the connection goes to the address that was checked,
// whatever the name would resolve to, and anything but a 2xx is a failure.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook } from "@/db/workers/webhook-send";

let port = 0;
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
});
