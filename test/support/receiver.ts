// Real HTTP receivers on loopback ports, for webhook tests: one that records every request
// and answers with the status the test sets, and one that never finishes its answer.
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";

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

export interface StuckReceiver {
  url: string;
  /** Requests whose headers arrived. */
  connections: number;
  /** Connections the sender has closed. */
  closed: number;
  close(): Promise<void>;
}

/**
 * A receiver that never finishes an answer: "silent" reads the request and says nothing;
 * "drip" sends its answer one byte every `dripMs`, so no idle timeout ever fires.
 */
export async function startStuckReceiver(mode: "silent" | "drip", dripMs = 200): Promise<StuckReceiver> {
  const sockets = new Set<Socket>();
  const state = { connections: 0, closed: 0 };
  const server = createNetServer((socket) => {
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    let seen = "";
    socket.on("data", (chunk) => {
      if (seen.includes("\r\n\r\n")) return;
      seen += chunk.toString("latin1");
      if (!seen.includes("\r\n\r\n")) return;
      state.connections++;
      if (mode === "drip") {
        // A status line, then a header whose value never ends.
        const head = "HTTP/1.1 200 OK\r\nx-drip: ";
        let sent = 0;
        timer = setInterval(() => socket.write(head[sent++] ?? "a"), dripMs);
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      sockets.delete(socket);
      state.closed++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/stuck`,
    get connections() {
      return state.connections;
    },
    get closed() {
      return state.closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
