// The server `npm start` runs (under scripts/supervise.mjs, which restarts it if it dies): the
// HTTP server in front of Next.js, in one process. It builds when there is
// no current build, refuses to start on an embedded data folder another process owns, answers
// what Next.js would answer with a plain-text 500 (unknown methods, undecodable paths), gives
// every request an id and one log line, and on SIGTERM/SIGINT stops accepting, drains, ends
// the event streams, closes the database and exits. Long because it is the one place that
// owns the sockets and the process; its access-control part lives in start-access.ts.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import type { AddressInfo, Socket } from "node:net";
import { allowedHostsOf } from "../lib/auth/access";
import { ENV_SCHEMA, env, envRecord } from "../lib/env";
import { ensureBuilt } from "./build";
import { releaseLoadedChunks } from "./loaded-chunks";
import { applyDataDirFlag } from "./data-dir";
import { accessFront, accessSettingsRefusal } from "./start-access";
import { ApiError, type ErrorCode } from "../lib/errors";

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));

// tsx (which runs this script) turns Node's source maps on for the whole process. Node 20 then
// reads, parses and keeps the map of every module required afterwards: every chunk of the
// Next.js build and Next's own runtime, a third of the server's live heap, and twice that in
// resident memory once the heap grows by its factor. `next start` runs with them off, and so
// does this server unless --enable-source-maps is given: stack traces in the log then name
// the built chunks, as under `next start`.
process.setSourceMapsEnabled(
  /--enable-source-maps\b/.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`),
);

const HELP = `Usage: npm start -- [options]    (or, without the supervisor: node scripts/server.mjs [options])

Serves the Floorline dashboard and API; builds first when there is no current build.

Options (each wins over its environment variable):
  --port <n>          port to listen on                     PORT                (3000)
  --host <address>    address to listen on                  HOST                (127.0.0.1)
  --data-dir <path>   embedded database folder              FLOORLINE_DATA_DIR  (.floorline/data)
  -h, --help          show this help

Other settings (environment): DATABASE_URL, FLOORLINE_DEMO, FLOORLINE_API_TOKEN, FLOORLINE_AUTH,
FLOORLINE_TRUSTED_PROXIES, LOG_LEVEL, FLOORLINE_STATEMENT_TIMEOUT_MS, FLOORLINE_DB_ACQUIRE_TIMEOUT_MS,
FLOORLINE_SHUTDOWN_TIMEOUT_MS. Every variable: docs/configuration.md.`;

function fail(message: string): never {
  process.stderr.write(`floorline: ${message}\n\n${HELP}\n`);
  process.exit(2);
}

/** A setting that must not be served with: said plainly, exit 1. */
function refuse(message: string): never {
  process.stderr.write(`floorline: refusing to start: ${message}\n`);
  process.exit(1);
}

let flags: { port?: string; host?: string; "data-dir"?: string; help?: boolean } = {};
try {
  flags = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  }).values;
} catch (error) {
  fail((error as Error).message);
}
if (flags.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const host = flags.host ?? env("HOST") ?? "127.0.0.1";
const portText = flags.port ?? (process.env.PORT || "3000");
const portParsed = ENV_SCHEMA.PORT.safeParse(portText);
if (!portParsed.success) fail(`the port must be 0-65535, not ${portText}`);
const port = portParsed.data;
// The app reads these (the data folder, and HOST to decide whether auth is on). A relative
// folder is taken from where the command was run, before moving to the project folder.
process.env.HOST = host;
process.env.PORT = String(port);
{
  const refusal = accessSettingsRefusal(host);
  if (refusal) refuse(refusal);
}
applyDataDirFlag(flags["data-dir"]);
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED = "1";
(process.env as Record<string, string>).NODE_ENV = "production";
// Signals are ours (below); Next.js must not exit before the database is closed.
process.env.NEXT_MANUAL_SIG_HANDLE = "1";

// V8 sizes the old generation as what survived its last full collection times a factor it
// picks from the allocation rate, up to 4: the garbage of large ingest batches made it keep
// several times the live data as heap, and the resident memory followed. A fixed factor
// keeps the heap near what is live. Not a hard cap (--max-old-space-size): the request
// bodies in flight alone may hold FLOORLINE_BODY_BUDGET_MB of text, and a heap that cannot
// grow past a cap aborts the process. Read at each collection, so setting it here applies
// from the start; a factor given on the command line or in NODE_OPTIONS wins.
const HEAP_GROWING_PERCENT = 100;
if (!/heap[-_]growing[-_]percent/.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`)) {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const { logger, errorFields, requestContext } = await import("../lib/observability/log");
const lifecycle = await import("../db/lifecycle");

const SHUTDOWN_TIMEOUT_MS = env("FLOORLINE_SHUTDOWN_TIMEOUT_MS") ?? 10_000;
/** How often the server chunks Node's cache holds are dropped (a sweep takes about 0.3 ms). */
const RELEASE_CHUNKS_EVERY_MS = 5_000;

// The embedded database's folder (as db/config.ts finds it, from the project folder); none with DATABASE_URL.
const dataDir = env("DATABASE_URL") ? null : (env("FLOORLINE_DATA_DIR") ?? path.join(root, ".floorline", "data"));

// One server per embedded data folder. The database layer takes the lock when it opens the
// folder; checking here as well refuses before the (slow) build and start.
if (dataDir) {
  const { dataLockOwner, DataFolderLockedError } = await import("../db/data-lock");
  const owner = dataLockOwner(dataDir);
  if (owner) {
    logger.fatal(new DataFolderLockedError(dataDir, owner).message);
    process.exit(1);
  }
}

// ---- Build when the sources changed since the last build ----------------------------------

const distDir = env("NEXT_DIST_DIR") ?? ".next";
if (!ensureBuilt({ root, distDir, log: (line) => logger.info(line) })) process.exit(1);

// ---- Route patterns for the log, from the build's own manifests -------------------------

/**
 * `patternOf`: `[chain_id]` as `{chain_id}`, so a log line's route reads like the API contract.
 * `isRouteHandler`: whether a path is served by a `route.ts` (not a page).
 * `pagePatternOf`: the pattern of the page a path names (not a route handler), if any, with
 * the path as it is routed (dot segments resolved).
 */
const { patternOf, isRouteHandler, pagePatternOf } = (() => {
  const routes: { regex: RegExp; route: string; page: string }[] = [];
  const handlers = new Set<string>();
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, distDir, "routes-manifest.json"), "utf8"));
    const appPaths: Record<string, string> = JSON.parse(
      readFileSync(path.join(root, distDir, "app-path-routes-manifest.json"), "utf8"),
    );
    for (const [file, page] of Object.entries(appPaths)) if (file.endsWith("/route")) handlers.add(page);
    const listed: { regex: string; page: string }[] = [
      ...(manifest.staticRoutes ?? []),
      ...(manifest.dynamicRoutes ?? []),
    ];
    for (const r of listed) {
      routes.push({
        regex: new RegExp(r.regex),
        route: r.page,
        page: r.page.replace(/\[\.{3}(\w+)\]/g, "{$1*}").replace(/\[(\w+)\]/g, "{$1}"),
      });
    }
  } catch {
    // No manifest: log the path instead.
  }
  // Static routes first, so /api/v1/originals/stats is not read as /api/v1/originals/{hash}.
  const find = (pathname: string) => routes.find((r) => r.regex.test(pathname));
  // Dot segments, encoded or not, are resolved first, as Next.js resolves them.
  const resolve = (pathname: string) => {
    try {
      return new URL(pathname.replace(/%2e/gi, "."), "http://x").pathname;
    } catch {
      return undefined;
    }
  };
  return {
    patternOf: (pathname: string) => (pathname.startsWith("/_next/") ? "/_next/*" : find(pathname)?.page),
    isRouteHandler: (pathname: string) => {
      const resolved = resolve(pathname);
      const route = resolved === undefined ? undefined : find(resolved)?.route;
      return route !== undefined && handlers.has(route);
    },
    pagePatternOf: (pathname: string) => {
      const resolved = resolve(pathname);
      if (resolved === undefined || resolved.startsWith("/_next/")) return undefined;
      const found = find(resolved);
      return found && !handlers.has(found.route) ? { pattern: found.page, path: resolved } : undefined;
    },
  };
})();

// ---- The app ------------------------------------------------------------------------------

// Shared with the app (db/lifecycle.ts): this script, not the app, handles the signals.
lifecycle.ownSignals("scripts/start.ts");
const stopping = lifecycle.shutdownSignal();

const { default: next } = await import("next");
const app = next({ dev: false, dir: root, hostname: host, port });
// The server listens at once (below) and answers "starting" until the app is prepared: Next.js
// loads, then the database opens, migrates and (on a first start) seeds the demo.
let handle: ReturnType<typeof app.getRequestHandler> | null = null;
let bound: (address: AddressInfo) => void = () => {};
const listening = new Promise<AddressInfo>((resolve) => {
  bound = resolve;
});
let published: { release(): void } | null = null;
const prepared = (async () => {
  await app.prepare();
  // Next.js runs instrumentation.ts (which opens, migrates and seeds the database, then starts
  // the workers) at its first request, which then waited for all of it: run it here, through
  // Next's own once-only registration, so the server answers "starting" until it is done.
  const { ensureInstrumentationRegistered } = await import(
    "next/dist/server/lib/router-utils/instrumentation-globals.external.js"
  );
  await ensureInstrumentationRegistered(root, distDir);
  // Before the first answer: whoever saw this server serve finds the CLI's way to it too.
  if (dataDir) published = await publishForCli(dataDir, await listening);
  handle = app.getRequestHandler();
  // Next.js loads every route in the background from its start, and a route can load chunks
  // of its own later: the chunks Node's cache holds are dropped now and then (loaded-chunks.ts).
  const serverDir = path.join(root, distDir, "server");
  releaseLoadedChunks(serverDir);
  setInterval(() => releaseLoadedChunks(serverDir), RELEASE_CHUNKS_EVERY_MS).unref();
})();

/**
 * The CLI cannot open the embedded folder this server holds: it finds the server through the
 * folder instead (db/server-record.ts) and sends its requests here, over loopback.
 */
async function publishForCli(folder: string, address: AddressInfo): Promise<{ release(): void } | null> {
  const { publishServer } = await import("../db/server-record");
  const { localReach } = await import("../lib/auth/local-token");
  try {
    return publishServer(folder, localReach(address.address, address.port, allowedHostsOf(envRecord())), address.port);
  } catch (error) {
    logger.warn(
      { err: errorFields(error) },
      "could not tell the CLI how to reach this server; it will say the folder is in use",
    );
    return null;
  }
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const ALLOW = [...METHODS].join(", ");
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Headers = Record<string, string>;

function apiError(res: ServerResponse, code: ErrorCode, message: string, headers: Headers = {}) {
  const error = new ApiError(code, message);
  const body = JSON.stringify(error.toBody());
  res.writeHead(error.status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function page(res: ServerResponse, status: number, title: string, text: string, headers: Headers = {}) {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Floorline</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem"><h1>${title}</h1><p>${text}</p><p><a href="/">Back to the overview</a></p></body></html>`;
  res.writeHead(status, {
    ...headers,
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function decodable(pathname: string): boolean {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** Answers what must not reach Next.js; true when it did. */
function answeredHere(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  // An absolute-form target (`GET http://host/api/v1/chains`) still names an API path.
  const api = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)?\/api(\/|$)/i.test(pathname);
  if (stopping.aborted) {
    const headers = { "retry-after": "5", connection: "close" };
    if (api) apiError(res, "database_unavailable", "The server is shutting down; try again shortly.", headers);
    else page(res, 503, "Restarting", "The server is shutting down. Try again in a few seconds.", headers);
    return true;
  }
  if (!METHODS.has(req.method ?? "")) {
    // Next.js answers TRACE and unknown methods with a plain-text 500.
    const headers = { allow: ALLOW };
    if (api) apiError(res, "method_not_allowed", `The method ${req.method} is not supported.`, headers);
    else page(res, 405, "Method not allowed", "This address can be read with GET.", headers);
    return true;
  }
  if (
    req.method === "POST" &&
    !api &&
    /^multipart\/form-data/i.test(req.headers["content-type"] ?? "") &&
    req.headers["next-action"] === undefined &&
    !isRouteHandler(pathname)
  ) {
    // Next.js reads such a post to a page as a form submitting a server action and answers
    // a body it cannot parse with a 500. No page here takes a form post; the app's one
    // server action is called by script, with its `Next-Action` header.
    page(res, 405, "Method not allowed", "This address can be read with GET.", { allow: "GET, HEAD" });
    return true;
  }
  if (!pathname.startsWith("/")) {
    const message = "The request target must be a path, like /api/v1/chains.";
    if (api) apiError(res, "bad_request", message);
    else page(res, 400, "Bad request", message);
    return true;
  }
  if (!decodable(pathname)) {
    // Next.js answers these with a plain-text 500 (vercel/next.js#92527); they name nothing.
    const message = "The path is not valid percent-encoded UTF-8, so it names no resource.";
    if (api) apiError(res, "not_found", message);
    else page(res, 404, "Not found", message);
    return true;
  }
  return false;
}

const inFlight = new Set<ServerResponse>();

/** How soon a client should ask again while the app starts. */
const STARTING_RETRY_SECONDS = "2";

/**
 * The answer while the app starts: 503 with Retry-After, saying what it is doing (the API's
 * error shape under /api, a page that reloads itself elsewhere), never a request left hanging.
 */
function starting(res: ServerResponse, pathname: string): void {
  const phase = lifecycle.startupPhase() ?? "finishing its start";
  const headers = { "retry-after": STARTING_RETRY_SECONDS, "cache-control": "no-store" };
  if (pathname === "/api" || pathname.startsWith("/api/")) {
    apiError(res, "database_unavailable", `Floorline is starting (${phase}); retry in a few seconds.`, headers);
    return;
  }
  page(
    res,
    503,
    "Floorline is starting",
    `Floorline is starting: ${phase}. This page reloads itself until it is ready.`,
    { ...headers, refresh: STARTING_RETRY_SECONDS },
  );
}

const front = accessFront({
  isRouteHandler,
  pagePatternOf,
  onError: (error) => logger.error({ err: errorFields(error) }, "page gate failed; the page checks access itself"),
});

const server = http.createServer((req, res) => {
  const started = process.hrtime.bigint();
  const given = req.headers["x-request-id"];
  const id = typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader("x-request-id", id);
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  inFlight.add(res);
  let logged = false;
  const done = () => {
    inFlight.delete(res);
    if (logged) return;
    logged = true;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const fields: Record<string, unknown> = {
      req_id: id,
      method: req.method,
      route: patternOf(pathname) ?? pathname.slice(0, 200),
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
    };
    if (!res.writableFinished) fields.aborted = true;
    const level = res.statusCode >= 500 ? "error" : "info";
    logger[level](fields, "request");
  };
  res.once("finish", done);
  res.once("close", done);
  // While draining, responses still in progress close their connection when done.
  if (stopping.aborted) res.shouldKeepAlive = false;
  if (answeredHere(req, res, pathname)) return;
  const serve = handle;
  if (serve === null) return starting(res, pathname);
  if (front.refusedAsCrossSite(req, res, pathname)) return;
  front.prepare(req, res, pathname);
  requestContext
    .run({ reqId: id }, async () => {
      if (!(await front.answeredByPageGate(req, res, pathname))) await serve(req, res);
    })
    .catch((error) => {
      logger.error({ req_id: id, err: errorFields(error) }, "request handler failed");
      if (!res.headersSent) page(res, 500, "Something went wrong", "The server failed to handle this request.");
      else res.destroy();
    });
});
// An idle kept-alive connection is closed after 65 s. A client that sends on it in the instant
// the server closes it is reset (ECONNRESET), and clients whose agents keep idle sockets without
// a timeout of their own (OpenTelemetry's exporter, Playwright's request context) send at any
// gap: the longer the timeout, the rarer that instant. At 5 s Node's own clients (5 s idle)
// met it, at 10 s e2e requests made 10 s apart did (twice in CI). 65 s is also longer than the
// usual idle timeout of a load balancer in front (60 s), so the balancer closes first; the
// headers timeout stays above it, as Node asks.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

/** An error answer written straight to a socket that never became a request. */
function socketError(socket: Socket, reason: string, error: ApiError, headers = "") {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\n${headers}connection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
  // Malformed HTTP (bad header bytes, oversized headers, unknown methods): a 4xx without
  // reaching Next.js. The path may be unreadable, so the body is the API's error shape.
  if (socket.writable && !socket.destroyed) {
    if (error.code === "HPE_HEADER_OVERFLOW") {
      const tooLarge = new ApiError("headers_too_large", "The request's headers are too large.");
      socketError(socket, "Request Header Fields Too Large", tooLarge);
    } else socketError(socket, "Bad Request", new ApiError("bad_request", "The request is not valid HTTP/1.1."));
  } else socket.destroy();
});

// CONNECT (a proxy tunnel) never reaches the request handler; without this Node drops the
// connection without an answer.
server.on("connect", (_req: IncomingMessage, socket: Socket) => {
  const refused = new ApiError("method_not_allowed", "The method CONNECT is not supported.");
  socketError(socket, "Method Not Allowed", refused, `allow: ${ALLOW}\r\n`);
});

server.listen(port, host, () => {
  const address = server.address() as AddressInfo;
  front.listening(address.address);
  logger.info({ host, port, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}` }, "listening");
  bound(address);
});
try {
  await prepared;
} catch (error) {
  logger.fatal({ err: errorFields(error) }, "the app could not start");
  process.exit(1);
}
lifecycle.setStartupPhase(null);
logger.info("ready");
// Under `npm start` (scripts/supervise.mjs): a server that became ready is restarted if it dies.
process.send?.({ floorline: "ready" });
server.on("error", (error) => {
  logger.fatal({ err: errorFields(error) }, `cannot listen on ${host}:${port}`);
  process.exit(1);
});

// ---- Shutdown -------------------------------------------------------------------------------

async function shutdown(signal: string, exitCode = 0) {
  if (!lifecycle.beginShutdown()) {
    logger.warn(`${signal} again: not waiting for requests to finish`);
    for (const res of inFlight) res.destroy();
    return;
  }
  // Whatever happens below (a log line that cannot be written because stdout's reader is
  // gone, a database that never closes), the process ends: an orphan would hold the data folder.
  setTimeout(() => process.exit(exitCode || 1), SHUTDOWN_TIMEOUT_MS + 20_000).unref();
  logger.info({ in_flight: inFlight.size }, `${signal}: stopping; draining requests`);
  published?.release();
  // From here, new requests on open connections get 503 and event streams end.
  server.close();
  server.closeIdleConnections();
  const deadline = Date.now() + SHUTDOWN_TIMEOUT_MS;
  while (inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (inFlight.size > 0) {
    logger.warn({ in_flight: inFlight.size }, `requests still running after ${SHUTDOWN_TIMEOUT_MS} ms: cut off`);
  }
  server.closeAllConnections();
  logger.info(`${signal}: closing the database`);
  let code = exitCode;
  try {
    await lifecycle.closeApp();
  } catch (error) {
    logger.error({ err: errorFields(error) }, "error while closing the database");
    code = 1;
  }
  logger.info("stopped");
  process.exit(code);
}

for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => void shutdown(signal));
// Started by the supervisor: when it is gone (even killed), nobody would stop or restart this
// server, and the data folder would stay locked by an orphan. Stop as on SIGTERM.
if (process.send) process.on("disconnect", () => void shutdown("supervisor gone"));

// postgres.js 3.4.9 can throw from a timer when the server drops a connection while a write
// is buffered (porsager/postgres#1208). Nothing waits on that write: the calls on that
// connection fail with 503 (or hit the database layer's deadline, which replaces the
// client), so the server keeps serving. Any other uncaught exception stops it cleanly.
function knownDriverBug(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /nextWrite/.test(error.stack ?? "") &&
    /postgres[\\/]src[\\/]connection/.test(error.stack ?? "")
  );
}
process.on("uncaughtException", (error) => {
  if (knownDriverBug(error)) {
    logger.error({ err: errorFields(error) }, "postgres.js lost a write on a dropped connection; serving on");
    return;
  }
  logger.fatal({ err: errorFields(error) }, "uncaught exception: shutting down");
  void shutdown("uncaughtException", 1);
});
process.on("unhandledRejection", (reason) => {
  // postgres.js fetches array types on each new connection without a handler on failure.
  logger.error({ err: errorFields(reason) }, "unhandled rejection");
});
