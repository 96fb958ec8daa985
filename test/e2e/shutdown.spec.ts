// The run command's server owns an embedded database; SIGTERM and SIGINT must close it
// cleanly so that a restart finds every committed receipt and the folder opens again.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { expect, test } from "@playwright/test";
import { type AppServer, freePort, receipt as ownReceipt, startApp } from "../support/app-server";

test("SIGTERM and SIGINT close the embedded database; a restart finds every receipt", async () => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-shutdown-"));
  const port = await freePort();
  const servers: AppServer[] = [];
  try {
    for (const [round, signal] of [
      [1, "SIGTERM"],
      [2, "SIGINT"],
    ] as const) {
      const server = await startApp({ port, dataDir });
      servers.push(server);
      const receipt = {
        chain_id: "shutdown-chain",
        pass_id: `shutdown.p${round}`,
        pass_number: round,
        current_content_hash: `h${round}`,
        current_size_bytes: 4096,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9,
      };
      const stored = await fetch(`${server.base}/api/v1/passes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(receipt),
      });
      expect(stored.status).toBe(201);
      expect(await server.stop(signal)).toBe(0);
      expect(server.output()).toContain(`${signal}: closing the database`);
      // Closing the database releases the folder's lock; a process that exits without closing leaves it.
      expect(existsSync(path.join(dataDir, "floorline.lock"))).toBe(false);
    }
    const server = await startApp({ port, dataDir });
    servers.push(server);
    const chain = await (await fetch(`${server.base}/api/v1/chains/shutdown-chain`)).json();
    expect(chain.passes.map((p: { pass_id: string }) => p.pass_id)).toEqual(["shutdown.p1", "shutdown.p2"]);
    expect(await server.stop()).toBe(0);
  } finally {
    // Whatever a failure left running; a no-op for the servers that exited.
    for (const server of servers) await server.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("shutdown drains the request in flight, ends event streams, answers 503 after it began, then closes", async () => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-drain-"));
  const port = await freePort();
  const servers: AppServer[] = [];
  try {
    const server = await startApp({ port, dataDir });
    servers.push(server);
    const url = server.base;
    const post = (body: unknown) =>
      fetch(`${url}/api/v1/passes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post(ownReceipt("drain-chain", 1))).status).toBe(201);

    const events = await fetch(`${url}/api/v1/chains/drain-chain/events`);
    expect(events.status).toBe(200);
    const reader = events.body!.getReader();
    await reader.read(); // the `version` event: the stream is open

    // Request A is in flight (its body half sent) when the signal arrives; request B is
    // pipelined behind it on the same connection, so it arrives after shutdown began.
    const body = JSON.stringify(ownReceipt("drain-chain", 2));
    const socket = net.connect(port, "127.0.0.1");
    let answers = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (answers += chunk));
    const socketClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      `POST /api/v1/passes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((r) => setTimeout(r, 500));
    server.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    socket.write(`${body.slice(20)}GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);

    // The event stream ends by itself (not cut by the process dying).
    for (;;) if ((await reader.read()).done) break;
    await socketClosed;
    expect(await server.exited).toBe(0);
    expect(existsSync(path.join(dataDir, "floorline.lock"))).toBe(false);

    const [first, second] = answers.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 201 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: \d+\r\n/i);
    expect(second).toContain('"code":"database_unavailable"');
    const log = server.output();
    expect(log).toContain("SIGTERM: stopping; draining requests");
    // By time, not by position in the captured output: the request in flight was answered
    // before the database closed.
    const lines = log
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { time: string; msg: string; method?: string; status?: number; ms?: number });
    const closing = lines.find((line) => line.msg === "SIGTERM: closing the database");
    const inFlight = lines.find((line) => line.method === "POST" && line.status === 201 && (line.ms ?? 0) >= 500);
    expect(closing, log).toBeDefined();
    expect(inFlight, log).toBeDefined();
    expect(Date.parse(inFlight!.time), log).toBeLessThanOrEqual(Date.parse(closing!.time));

    const again = await startApp({ port, dataDir });
    servers.push(again);
    const chain = await (await fetch(`${url}/api/v1/chains/drain-chain`)).json();
    expect(chain.passes.map((p: { pass_id: string }) => p.pass_id)).toEqual(["drain-chain.p1", "drain-chain.p2"]);
    expect(await again.stop()).toBe(0);
  } finally {
    for (const server of servers) await server.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});
