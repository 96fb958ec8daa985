// Every environment variable the app reads, parsed in one place; docs/configuration.md says
// what each means (test/unit/env.test.ts holds the two to the same names). A value that does not parse counts as unset, so
// its default applies: refusing to start, or every request, over a typo in the environment
// would be worse. Read at each call, not once at import: the start script sets HOST, PORT and
// FLOORLINE_DATA_DIR from its flags before the app reads them, and tests change them.
//
// Modules that give a variable its meaning (lib/auth/access.ts, lib/originals/rules.ts) take
// the environment as a plain record, so that they stay pure and testable with one, and read
// it through env() with that record as the source. Only this module reads process.env: Biome's
// noProcessEnv holds the app to that (scripts, tests and the framework's config are exempt).
import { z } from "zod";
import { trustedProxyList } from "./auth/client-address";

/** Where variables are read from: process.env when left out, a plain record in tests. */
export type EnvSource = Partial<Record<string, string | undefined>>;
type Source = EnvSource;

const text = z.string().trim().min(1);
/** A whole number above zero, in decimal digits only. */
const positiveInt = z
  .string()
  .trim()
  .regex(/^\d+$/)
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
/** Any number above zero (fractions allowed). */
const positiveNumber = z.string().trim().min(1).transform(Number).pipe(z.number().positive().finite());
const flag = z.enum(["0", "1"]);
/** A whole number from zero, in decimal digits only. */
const wholeNumber = z
  .string()
  .trim()
  .regex(/^\d+$/)
  .transform(Number)
  .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
/** Comma-separated, trimmed, lower-cased, empty entries dropped; nothing left counts as unset. */
const list = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string()).min(1));

/** Shorter shared secrets are refused at start-up: the token opens every scope. */
export const MIN_API_TOKEN_LENGTH = 32;

/** Name → how it parses. What each means, and its default, is docs/configuration.md. */
export const ENV_SCHEMA = {
  HOST: text,
  PORT: z
    .string()
    .trim()
    .regex(/^\d{1,5}$/)
    .transform(Number)
    .pipe(z.number().max(65535)),
  DATABASE_URL: text,
  DATABASE_READ_URL: text,
  FLOORLINE_DATA_DIR: text,
  FLOORLINE_DEMO: flag,
  FLOORLINE_STATEMENT_TIMEOUT_MS: positiveInt,
  FLOORLINE_DB_ACQUIRE_TIMEOUT_MS: positiveInt,
  FLOORLINE_SHUTDOWN_TIMEOUT_MS: positiveInt,
  FLOORLINE_BODY_BUDGET_MB: positiveNumber,
  FLOORLINE_BODY_IDLE_TIMEOUT_MS: positiveInt,
  FLOORLINE_MAX_EVENT_STREAMS: positiveInt,
  FLOORLINE_MAX_EVENT_STREAMS_PER_CALLER: positiveInt,
  FLOORLINE_MAX_OTLP_EXPORTS: positiveInt,
  FLOORLINE_MAX_OTLP_EXPORTS_PER_CALLER: positiveInt,
  FLOORLINE_RETENTION_DAYS: positiveNumber,
  FLOORLINE_MEASURE_THREADS: positiveInt,
  FLOORLINE_MEASURE_BUDGET_MS: positiveInt,
  FLOORLINE_PUBLIC_URL: text,
  FLOORLINE_WEBHOOK_ALLOW_PRIVATE: flag,
  FLOORLINE_AUTH: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["on", "off", "1", "0", "true", "false"]))
    .transform((v) => (v === "on" || v === "1" || v === "true" ? ("on" as const) : ("off" as const))),
  FLOORLINE_AUTH_OFF_I_UNDERSTAND: flag,
  FLOORLINE_ALLOWED_HOSTS: list,
  // Every entry must be an address or a CIDR block: a typo must not trust the world.
  FLOORLINE_TRUSTED_PROXIES: list.transform((entries, ctx) => {
    const parsed = trustedProxyList(entries);
    if (parsed) return parsed;
    ctx.addIssue({ code: "custom", message: "not a list of addresses and CIDR blocks" });
    return z.NEVER;
  }),
  FLOORLINE_SESSION_IDLE_MINUTES: positiveNumber,
  FLOORLINE_SESSION_MAX_HOURS: positiveNumber,
  // Any length is honoured once running (refusing it there would open the server); the start
  // script refuses to start with one shorter than MIN_API_TOKEN_LENGTH.
  FLOORLINE_API_TOKEN: text,
  // What 0 means, and the upper bound of the TTL, is lib/originals/rules.ts's.
  CCR_MAX_BYTES: wholeNumber,
  CCR_TTL_SECONDS: wholeNumber,
  LOG_LEVEL: z
    .string()
    .toLowerCase()
    .pipe(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])),
  // Read by next.config.mjs too (Next.js loads it before any of the app's modules).
  NEXT_DIST_DIR: text,
  // Set by the tools, not by operators: `npm start` and `next start` say production, vitest test.
  NODE_ENV: z.enum(["development", "production", "test"]),
} as const;

type EnvName = keyof typeof ENV_SCHEMA;
type EnvValue<K extends EnvName> = z.output<(typeof ENV_SCHEMA)[K]>;

/** One variable, parsed; undefined when unset or not valid. */
export function env<K extends EnvName>(name: K, source: Source = process.env): EnvValue<K> | undefined {
  const raw = source[name];
  if (raw === undefined) return undefined;
  const parsed = ENV_SCHEMA[name].safeParse(raw);
  return parsed.success ? (parsed.data as EnvValue<K>) : undefined;
}

/** Whether a variable is set to something that does not parse (to say so at start-up). */
export function envInvalid(name: EnvName, source: Source = process.env): boolean {
  const raw = source[name];
  return raw !== undefined && raw.trim() !== "" && env(name, source) === undefined;
}

/** The variables the app reads, as a plain record for the modules that parse their own. */
export function envRecord(source: Source = process.env): Partial<Record<EnvName, string>> {
  const out: Partial<Record<EnvName, string>> = {};
  for (const name of Object.keys(ENV_SCHEMA) as EnvName[]) {
    const raw = source[name];
    if (raw !== undefined) out[name] = raw;
  }
  return out;
}
