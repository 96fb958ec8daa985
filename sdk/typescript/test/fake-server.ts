// A scripted stand-in for the server, to see exactly what the SDK sends and when: each
// request is answered by the next scripted reply, else by `fallback`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  path: string;
  body: unknown;
  at: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeServer {
  url: string;
  seen: Seen[];
  script: Reply[];
  fallback: (seen: Seen) => Reply;
  /** How long each answer takes, after the request is seen (a slow server); 0 by default. */
  delayMs: number;
  close(): Promise<void>;
}

/** Answers receipts batches the way the server does, one result per receipt. */
export function storeAll(seen: Seen): Reply {
  if (seen.method === "GET")
    return { status: 404, body: { error: { code: "not_found", message: "no such thing here" } } };
  const body = seen.body as { receipts?: Array<Record<string, unknown>> } | null;
  if (seen.path === "/api/v1/passes" && body?.receipts) {
    return {
      status: 201,
      body: { results: body.receipts.map((r) => ({ chain_id: r.chain_id, pass_id: r.pass_id, policy_version: 0 })) },
    };
  }
  return { status: 201, body: {} };
}

export async function fakeServer(port = 0): Promise<FakeServer> {
  const state: FakeServer = {
    url: "",
    seen: [],
    script: [],
    fallback: storeAll,
    delayMs: 0,
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const seen: Seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        body: text ? JSON.parse(text) : null,
        at: Date.now(),
      };
      state.seen.push(seen);
      const reply = state.script.shift() ?? state.fallback(seen);
      const answer = () => {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body ?? {}));
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

export const receiptsIn = (seen: Seen[]) =>
  seen
    .filter((s) => s.path === "/api/v1/passes")
    .flatMap((s) => (s.body as { receipts: Array<Record<string, unknown>> }).receipts);
