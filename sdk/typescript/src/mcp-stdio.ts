#!/usr/bin/env node
// floorline-mcp: Floorline's MCP tools over stdio, for agents that spawn their tools. It relays
// each JSON-RPC message from stdin to the server's streamable HTTP endpoint (`<url>/mcp`, with
// the key) and writes the answers to stdout, so the tools, their descriptions and their access
// rules are the server's own, never a second copy. Newline-delimited JSON on both sides, as
// MCP's stdio transport is; anything else goes to stderr.
import { createInterface } from "node:readline";

const USAGE = `Usage: floorline-mcp --url <server> [--key <key>]

Serves Floorline's MCP tools (floorline_retrieve, floorline_check, floorline_constraints,
floorline_chain) over stdio, relaying to <server>/mcp.
  --url   the Floorline server (default: $FLOORLINE_URL)
  --key   an API key, sent as 'Authorization: Bearer <key>' (default: $FLOORLINE_API_KEY)`;

/** JSON-RPC's code for a server error; MCP clients show the message. */
const SERVER_ERROR = -32000;

interface Options {
  url: string;
  key: string | undefined;
}

function parseArgs(argv: readonly string[]): Options | string {
  let url = process.env.FLOORLINE_URL;
  let key = process.env.FLOORLINE_API_KEY;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (name === "--help" || name === "-h") return USAGE;
    if (name === "--url") url = value();
    else if (name === "--key") key = value();
    else return `floorline-mcp: unknown argument ${JSON.stringify(arg)}\n\n${USAGE}`;
  }
  if (!url) return `floorline-mcp: give the server with --url (or FLOORLINE_URL)\n\n${USAGE}`;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    return `floorline-mcp: --url must be an http(s) URL, not ${JSON.stringify(url)}`;
  }
  return { url: url.replace(/\/+$/, ""), key: key || undefined };
}

type Message = Record<string, unknown>;

function isObject(value: unknown): value is Message {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The ids of the requests among messages (notifications and responses have none to answer). */
function requestIds(messages: readonly unknown[]): Array<string | number> {
  return messages.flatMap((m) =>
    isObject(m) && typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number") ? [m.id] : [],
  );
}

/** The messages of an SSE body: each event's data lines joined, parsed as JSON. */
function sseMessages(text: string): unknown[] {
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

/** The server's error body (`{"error": {"code", "message"}}`) in one line, or the status alone. */
async function describeRefusal(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body.error && typeof body.error.message === "string") {
      return `Floorline answered ${response.status} ${String(body.error.code)}: ${body.error.message}`;
    }
  } catch {
    // not the contract's JSON: say the status
  }
  return `Floorline answered HTTP ${response.status}`;
}

function main(argv: readonly string[]): void {
  const options = parseArgs(argv);
  if (typeof options === "string") {
    const help = options === USAGE;
    (help ? process.stdout : process.stderr).write(`${options}\n`);
    process.exitCode = help ? 0 : 2;
    return;
  }
  const endpoint = `${options.url}/mcp`;
  let protocolVersion: string | undefined;
  const write = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const fail = (ids: Array<string | number>, message: string) => {
    for (const id of ids) write({ jsonrpc: "2.0", id, error: { code: SERVER_ERROR, message } });
    if (ids.length === 0) process.stderr.write(`floorline-mcp: ${message}\n`);
  };

  const relay = async (line: string) => {
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line is not JSON" } });
      return;
    }
    const messages = Array.isArray(body) ? body : [body];
    const ids = requestIds(messages);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (protocolVersion) headers["mcp-protocol-version"] = protocolVersion;
    let response: Response;
    try {
      response = await fetch(endpoint, { method: "POST", headers, body: line });
    } catch (error) {
      fail(ids, `Floorline at ${options.url} could not be reached: ${(error as Error).message}`);
      return;
    }
    if (!response.ok) {
      fail(ids, await describeRefusal(response));
      return;
    }
    if (response.status === 202) return;
    const text = await response.text();
    let answers: unknown[];
    try {
      answers = (response.headers.get("content-type") ?? "").includes("text/event-stream")
        ? sseMessages(text)
        : [JSON.parse(text)].flat();
    } catch {
      fail(ids, "Floorline's answer was not JSON-RPC");
      return;
    }
    for (const answer of answers) {
      // The version the session speaks: later requests name it, as streamable HTTP asks.
      const result = isObject(answer) && isObject(answer.result) ? answer.result : undefined;
      if (typeof result?.protocolVersion === "string") protocolVersion = result.protocolVersion;
      write(answer);
    }
  };

  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    const task = relay(line).finally(() => pending.delete(task));
    pending.add(task);
  });
  // The client closed stdin: answer what is in flight, then exit.
  lines.on("close", () => {
    void Promise.allSettled([...pending]).then(() => process.exit(0));
  });
}

main(process.argv.slice(2));
