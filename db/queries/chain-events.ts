// Which chains changed, told to every app instance. A write sends NOTIFY in its transaction
// (delivered at commit): on PostgreSQL to every instance's LISTEN connection, so a live page
// on instance B hears of a receipt ingested on instance A at once, each instance keeping one
// LISTEN connection whatever the number of open streams; on the embedded database to the one
// process it serves (PGlite delivers to its own listeners). Streams poll only where LISTEN
// could not be set up.
import "server-only";
import { sql } from "drizzle-orm";
import type { ChainVersion } from "@/lib/chains/types";
import { getHandle } from "../index";
import type { Executor } from "../types";
import { getChainVersion } from "./chains";
import { processSingleton } from "@/lib/process-singleton";

const CHANNEL = "floorline_chains";
// NOTIFY payloads stop at 8,000 bytes; past this a batch says "every chain may have changed".
const MAX_PAYLOAD = 7_000;
const EVERY_CHAIN = "*";

/** Tells every instance, when the transaction commits, that these chains changed. */
export async function notifyChainsChanged(tx: Executor, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  const ids = JSON.stringify([...new Set(chainIds)]);
  await tx.execute(sql`select pg_notify(${CHANNEL}, ${ids.length > MAX_PAYLOAD ? EVERY_CHAIN : ids})`);
}

type Waiter = () => void;

interface Registry {
  waiters: Map<string, Set<Waiter>>;
  /** Resolves true once LISTEN is in place; false where it could not be set up. */
  listening?: Promise<boolean>;
}

const registry = processSingleton<Registry>("chainEvents", () => ({ waiters: new Map() }));

// A read made before a change was notified must not answer the streams it wakes: without
// this, a change committed within SHARED_READ_MS of the last read was seen only at the next
// safety poll, 15 s later.
function wake(payload: string): void {
  if (payload === EVERY_CHAIN) {
    sharedReads.clear();
    for (const set of registry.waiters.values()) for (const w of set) w();
    return;
  }
  let ids: unknown;
  try {
    ids = JSON.parse(payload);
  } catch {
    return;
  }
  if (!Array.isArray(ids)) return;
  for (const id of ids.map(String)) {
    sharedReads.delete(id);
    for (const w of registry.waiters.get(id) ?? []) w();
  }
}

/** Whether this process hears other instances' writes as they commit. */
export function chainNotificationsLive(): Promise<boolean> {
  registry.listening ??= (async () => {
    const handle = await getHandle();
    if (!handle.listen) return false;
    await handle.listen(CHANNEL, wake);
    return true;
  })().catch(() => {
    // The database was unreachable: the next stream tries again, polling meanwhile.
    registry.listening = undefined;
    return false;
  });
  return registry.listening;
}

export interface ChainSubscription {
  /** Resolves at once if the chain changed since the last call, else on the next change, after `ms`, or on abort. */
  next(ms: number, signal: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * Listens for changes of one chain. Subscribe before reading the chain, so a change that
 * commits between the read and the wait is not missed.
 */
export function subscribeChainChanges(chainId: string): ChainSubscription {
  let changed = false;
  let release: (() => void) | null = null;
  const onChange: Waiter = () => {
    changed = true;
    release?.();
  };
  const set = registry.waiters.get(chainId) ?? new Set<Waiter>();
  registry.waiters.set(chainId, set);
  set.add(onChange);
  return {
    next(ms, signal) {
      return new Promise<void>((resolve) => {
        // Declared before `done`, which a change heard before this wait calls at once.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          release = null;
          changed = false;
          resolve();
        };
        if (changed || signal.aborted) return done();
        timer = setTimeout(done, ms);
        signal.addEventListener("abort", done, { once: true });
        release = done;
      });
    },
    close() {
      set.delete(onChange);
      if (set.size === 0 && registry.waiters.get(chainId) === set) registry.waiters.delete(chainId);
    },
  };
}

// One read of a chain's version serves every stream of that chain that asks within
// SHARED_READ_MS: a chain open in a thousand tabs costs the database one poll, not a thousand.
const SHARED_READ_MS = 500;
interface SharedRead {
  at: number;
  value: Promise<ChainVersion | null>;
}
const sharedReads = processSingleton("chainReads", () => new Map<string, SharedRead>());

/** The chain's version, read at most once per SHARED_READ_MS per process for all its streams. */
export function getSharedChainVersion(chainId: string, now = Date.now()): Promise<ChainVersion | null> {
  const cached = sharedReads.get(chainId);
  if (cached && now - cached.at < SHARED_READ_MS) return cached.value;
  // A read is forgotten once too old to share. Each holds its promise, and a promise holds the
  // request context it was made in (Next's request store, down to the response and its
  // socket): kept until the map filled up, thousands of finished streams stayed in memory.
  // Reads sit in the map in the order they were made, so the stale ones are at its front.
  for (const [id, read] of sharedReads) {
    if (now - read.at < SHARED_READ_MS) break;
    sharedReads.delete(id);
  }
  const value = getChainVersion(chainId, { settled: false });
  sharedReads.delete(chainId);
  sharedReads.set(chainId, { at: now, value });
  // A failed read is not shared beyond the callers already waiting on it.
  value.catch(() => {
    if (sharedReads.get(chainId)?.value === value) sharedReads.delete(chainId);
  });
  return value;
}

/** How many chain reads are held for sharing (for tests). */
export function sharedChainReadCount(): number {
  return sharedReads.size;
}
