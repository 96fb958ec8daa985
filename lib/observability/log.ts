// The one logger: pino, JSON lines on stdout (what log collectors read), or human-readable
// lines through pino-pretty when stdout is a terminal. `LOG_LEVEL` sets the level.
//
// It lives in lib/ although lib/ is otherwise free of I/O: its only effect is a line on
// stdout, it reads no state of the app, and every layer (route wrapper, error contract, db
// start-up, the HTTP server in scripts/start.ts) must log the same way.
import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { LOGGER, processSingleton } from "../process-singleton";
import { env } from "../env";

export { type ErrorFields, errorFields } from "./error-fields";

/**
 * The request a line is logged for: scripts/start.ts runs each request inside it, so every
 * line the app logs while handling it carries its `req_id`. One per process for the same reason
 * as the logger.
 */
export const requestContext = processSingleton("requestContext", () => new AsyncLocalStorage<{ reqId: string }>());

function createLogger(): Logger {
  const level = env("LOG_LEVEL") ?? "info";
  const options = {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const request = requestContext.getStore();
      return request ? { req_id: request.reqId } : {};
    },
  };
  if (process.stdout.isTTY) {
    // Synchronous and in-process: pino's worker-thread transports do not survive bundling.
    return pino(options, pretty({ sync: true, colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid" }));
  }
  return pino(options);
}

/**
 * The process-wide logger, one per process: Next.js bundles this module into several
 * chunks, and lib/errors.ts (which client code also imports, so it cannot import pino) finds
 * it there.
 */
export const logger: Logger = processSingleton(LOGGER, createLogger);
