// State that must be one per process: Next.js bundles a module into several chunks (the
// instrumentation hook and each route load their own copy), dev reloads evaluate it again,
// and the HTTP server in scripts/start.ts loads the source once more beside the build. A
// module-level variable would exist once per copy; globalThis exists once per process.

/** The process's one `name`, made by `create` on first use and shared by every copy of the caller. */
export function processSingleton<T>(name: string, create: () => T): T {
  const slots = globalThis as unknown as Record<symbol, { value: T } | undefined>;
  const key = Symbol.for(`floorline.${name}`);
  slots[key] ??= { value: create() };
  return slots[key].value;
}

/** The process's `name` if some copy made it already; creates nothing. */
export function existingSingleton<T>(name: string): T | undefined {
  const slots = globalThis as unknown as Record<symbol, { value: T } | undefined>;
  return slots[Symbol.for(`floorline.${name}`)]?.value;
}

/** The logger's name: lib/errors.ts, which client code imports, finds the server's logger by it without importing pino. */
export const LOGGER = "logger";
