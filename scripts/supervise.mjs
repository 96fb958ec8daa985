// `npm start`: runs the server (scripts/start.ts, by way of scripts/server.mjs) as a child
// process and keeps it running. A server that dies after it was ready (a crash, an abort, an
// out-of-memory kill) is started again after a pause that doubles from 1 s to 30 s, with a log
// line saying how it ended; a server that ran a minute before dying starts the pause afresh. A
// server that never became ready (a refused setting, the data folder locked, a failed build,
// --help) is not restarted: its exit code is this process's. SIGTERM and SIGINT go to the
// server, and this process exits when it has stopped: the data folder's lock is released by
// then. Plain JavaScript: neither this process nor the server carries a TypeScript loader.
// docs/operations.md.
import { spawn } from "node:child_process";
import path from "node:path";

const SERVER = path.join(path.dirname(new URL(import.meta.url).pathname), "server.mjs");
const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30_000;
/** A server that ran this long before it died is restarted after the first pause again. */
const STEADY_MS = 60_000;

/**
 * One JSON line on stderr, as the server's own log lines read (pino's level numbers).
 * @param {"info" | "warn" | "error"} level
 * @param {string} msg
 * @param {Record<string, unknown>} fields
 */
function log(level, msg, fields = {}) {
  const levels = { info: 30, warn: 40, error: 50 };
  process.stderr.write(
    `${JSON.stringify({ level: levels[level], time: Date.now(), pid: process.pid, ...fields, msg })}\n`,
  );
}

/** @type {import("node:child_process").ChildProcess | null} */
let server = null;
/** @type {NodeJS.Signals | null} */
let stopping = null;
let pause = FIRST_PAUSE_MS;
/** @type {NodeJS.Timeout | null} */
let waiting = null;

function run() {
  const startedAt = Date.now();
  let ready = false;
  const child = spawn(process.execPath, [...process.execArgv, SERVER, ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    // A group of its own: Ctrl-C at a terminal reaches this process alone, which passes it on
    // once (the server reads a second signal as "stop waiting for requests").
    detached: true,
  });
  server = child;
  child.on("message", (message) => {
    if (message?.floorline === "ready") ready = true;
  });
  child.once("exit", (code, signal) => {
    server = null;
    if (stopping) process.exit(code ?? 0);
    if (!ready) {
      // Start-up refused or failed: restarting would fail the same way.
      process.exit(code ?? 1);
    }
    const ran = Date.now() - startedAt;
    if (ran >= STEADY_MS) pause = FIRST_PAUSE_MS;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    log("error", `the server ${how} after ${Math.round(ran / 1000)} s; starting it again in ${pause / 1000} s`, {
      server_pid: child.pid,
      exit_code: code,
      signal,
    });
    waiting = setTimeout(() => {
      waiting = null;
      run();
    }, pause);
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  });
}

for (const signal of /** @type {const} */ (["SIGTERM", "SIGINT"])) {
  process.on(signal, () => {
    stopping = signal;
    if (waiting) {
      clearTimeout(waiting);
      process.exit(0);
    }
    // A second signal goes on as well: the server stops waiting for its requests then.
    server?.kill(signal);
  });
}

run();
