// The CLI's way to the database while a server holds the embedded data folder: the server's
// own API, over loopback, with the token the server wrote into the folder
// (db/server-record.ts). The answers are the API's, so what the CLI prints is the same
// either way.
import http from "node:http";
import type { ServerRecord } from "../db/server-record";
import type { KeyScope, Role } from "../lib/auth/credentials";
import type { ApiKeyWire, CreatedApiKeyWire, OperatorWire } from "../lib/schemas/access";

/** An answer of the server that is the caller's doing (a taken name, no such key): exit 2, like bad input. */
export class ServerRefusal extends Error {}

interface Answer {
  status: number;
  body: unknown;
}

// Creating an operator hashes its password (scrypt), which waits behind other hashes on a busy server.
const TIMEOUT_MS = 60_000;

function request(server: ServerRecord, method: string, route: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: server.address ?? undefined,
        port: server.port,
        method,
        path: route,
        headers: {
          host: server.host,
          authorization: `Bearer ${server.token}`,
          accept: "application/json",
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on("error", (error) =>
      reject(
        new Error(
          `The server (process ${server.pid}) holds the data folder but could not be reached on port ${server.port}: ${error.message}.`,
        ),
      ),
    );
    req.end(payload);
  });
}

function errorOf(answer: Answer): { code: string; message: string } {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown; issues?: unknown } } | null)?.error;
  const issues = Array.isArray(error?.issues)
    ? (error.issues as { path?: string; message?: string }[]).map((i) => `${i.path}: ${i.message}`).join("; ")
    : "";
  return {
    code: typeof error?.code === "string" ? error.code : "",
    message: `${typeof error?.message === "string" ? error.message : `The server answered ${answer.status}.`}${issues ? ` (${issues})` : ""}`,
  };
}

/** The answer's body when its status is `expected`; else the server's refusal, said as the API said it. */
async function expect<T>(answer: Promise<Answer>, expected: number): Promise<T> {
  const got = await answer;
  if (got.status === expected) return got.body as T;
  const { code, message } = errorOf(got);
  if (got.status === 401) {
    throw new Error(`The server refused the CLI's token (${message}). Is the server on another machine's folder?`);
  }
  if (code === "name_taken" || code === "not_found" || code === "validation_failed" || code === "invalid_body") {
    throw new ServerRefusal(message);
  }
  throw new Error(message);
}

export function serverBackend(server: ServerRecord) {
  return {
    createKey: (input: { name: string; scopes: KeyScope[] }) =>
      expect<CreatedApiKeyWire>(request(server, "POST", "/api/v1/keys", input), 201),

    async listKeys(): Promise<ApiKeyWire[]> {
      const keys: ApiKeyWire[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page: { items: ApiKeyWire[]; next_cursor: string | null } = await expect(
          request(server, "GET", `/api/v1/keys${query}`),
          200,
        );
        keys.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      return keys;
    },

    async revokeKey(id: string): Promise<ApiKeyWire | null> {
      const answer = await request(server, "DELETE", `/api/v1/keys/${id}`);
      return answer.status === 404 ? null : expect<ApiKeyWire>(Promise.resolve(answer), 200);
    },

    async createOperator(input: { name: string; role: Role; password: string }): Promise<OperatorWire | null> {
      const answer = await request(server, "POST", "/api/v1/operators", input);
      return errorOf(answer).code === "name_taken" ? null : expect<OperatorWire>(Promise.resolve(answer), 201);
    },

    listOperators: async () =>
      (await expect<{ items: OperatorWire[] }>(request(server, "GET", "/api/v1/operators"), 200)).items,

    close: async () => {},
  };
}
