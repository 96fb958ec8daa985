// A real HTTP receiver on a loopback port, for webhook tests: records every request and
// answers with the status the test sets.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status the next requests get (200 by default). */
  answer(status: number): void;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(status < 300 ? "ok" : "receiver down");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    received,
    answer(next) {
      status = next;
    },
    async waitFor(count, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`the receiver got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The item at `index`, or a failed test saying which one is missing. */
export function nth<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`expected an item at index ${index}, got ${list.length} items`);
  return item;
}
