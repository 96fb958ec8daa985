import type { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";

export { type ErrorFields, errorFields } from "./error-fields.mjs";

/** The process-wide logger (pino; JSON on stdout, pretty on a terminal; `LOG_LEVEL`). */
export declare const logger: Logger;

/** The request being handled, when there is one: its lines carry `req_id`. */
export declare const requestContext: AsyncLocalStorage<{ reqId: string }>;
