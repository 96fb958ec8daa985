// The process's shutdown, one per process (lib/process-singleton.ts): the HTTP server in
// scripts/start.ts and every chunk of the built app see the same state.
// - `shutdownSignal()` is aborted when shutdown begins: event streams end on it, new
//   requests are refused, and a closed database is not reopened.
// - The app says how it closes (`onClose`: background work first, then the database);
//   whoever runs the shutdown calls `closeApp()` once in-flight requests have drained.
// - scripts/start.ts handles SIGTERM/SIGINT itself (it drains first). Under a plain
//   `next start` (with NEXT_MANUAL_SIG_HANDLE=1) the app handles them: `exitOnSignals()`.
import { errorFields, logger } from "@/lib/observability/log";
import { processSingleton } from "@/lib/process-singleton";

interface Lifecycle {
  stopping: AbortController;
  /** What the app is doing before it serves (null once it serves): the starting page says it. */
  startup: string | null;
  close?: () => Promise<void>;
  /** The HTTP server that handles signals itself, when there is one. */
  signalOwner?: string;
}

const lifecycle = (): Lifecycle =>
  processSingleton("lifecycle", () => ({ stopping: new AbortController(), startup: "starting Next.js" }));

/** What the app is doing while it starts, in a few words; null once it serves. */
export function startupPhase(): string | null {
  return lifecycle().startup;
}

/** Says what the app is doing now while it starts (null: it serves). */
export function setStartupPhase(phase: string | null): void {
  lifecycle().startup = phase;
}

/** Aborted once the process has begun to shut down. */
export function shutdownSignal(): AbortSignal {
  return lifecycle().stopping.signal;
}

/** Begins the shutdown; false when it had begun already. */
export function beginShutdown(): boolean {
  const { stopping } = lifecycle();
  if (stopping.signal.aborted) return false;
  stopping.abort();
  return true;
}

/** How the app closes once requests have drained (set once, when the app starts). */
export function onClose(close: () => Promise<void>): void {
  lifecycle().close = close;
}

/** Closes the app (background work, then the database); nothing when it never started. */
export async function closeApp(): Promise<void> {
  await lifecycle().close?.();
}

/** Called by an HTTP server that handles SIGTERM and SIGINT itself, before the app starts. */
export function ownSignals(owner: string): void {
  lifecycle().signalOwner = owner;
}

/**
 * Without an HTTP server of ours in front (a plain `next start`): on SIGTERM/SIGINT end the
 * event streams, close the app and exit. There is no drain here; scripts/start.ts drains.
 */
export function exitOnSignals(): void {
  if (lifecycle().signalOwner) return;
  const shutdown = async (signal: string) => {
    if (!beginShutdown()) return;
    logger.info(`${signal}: closing the database`);
    try {
      await closeApp();
    } catch (error) {
      logger.error({ err: errorFields(error) }, "error while closing the database");
    }
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
