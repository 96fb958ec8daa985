// Setup for each integration file when files share a worker process (vitest `isolate: false`):
// the file starts with the state a process of its own would have. The app keeps process-wide
// state on globalThis (lib/process-singleton.ts) and in modules; both are dropped here, so
// every module the file imports is evaluated afresh and makes its state anew.
import { vi } from "vitest";

// Kept: the logger and its request context (pino's transports hold open handles), and the
// measurement's worker threads (stateless but for caches of analyses; each costs a start).
const KEEP = new Set(["floorline.logger", "floorline.requestContext", "floorline.measure-pool"]);
const slots = globalThis as unknown as Record<PropertyKey, unknown>;
for (const key of Object.getOwnPropertySymbols(globalThis)) {
  const name = Symbol.keyFor(key);
  if (name?.startsWith("floorline.") && !KEEP.has(name)) delete slots[key];
}
delete slots.floorlineContentCache;
vi.resetModules();
