import type { Logger } from "pino";

export { type ErrorFields, errorFields } from "./error-fields.mjs";

/** The process-wide logger (pino; JSON on stdout, pretty on a terminal; `LOG_LEVEL`). */
export declare const logger: Logger;
