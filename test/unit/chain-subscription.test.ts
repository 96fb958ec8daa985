// A chain subscription: a change heard before the stream waits must end the next wait at once
// (NOTIFY can arrive between the stream's first read and its first wait), and a wait with no
// change ends at its time-out or abort.
import { describe, expect, it } from "vitest";
import { subscribeChainChanges } from "@/db/queries/chain-events";
import { existingSingleton } from "@/lib/process-singleton";

/** What LISTEN does on a notification: wakes every waiter of the chain. */
function announce(chainId: string): void {
  const registry = existingSingleton<{ waiters: Map<string, Set<() => void>> }>("chainEvents");
  for (const wake of registry?.waiters.get(chainId) ?? []) wake();
}

describe("subscribeChainChanges", () => {
  it("returns at once from a wait when the change came before it", async () => {
    const changes = subscribeChainChanges("c1");
    announce("c1");
    const started = Date.now();
    await changes.next(5_000, new AbortController().signal);
    expect(Date.now() - started).toBeLessThan(1_000);
    changes.close();
  });

  it("wakes a waiting stream on a change of its chain, not of another", async () => {
    const changes = subscribeChainChanges("c2");
    let woken = false;
    const waiting = changes.next(5_000, new AbortController().signal).then(() => {
      woken = true;
    });
    announce("other");
    await new Promise((r) => setTimeout(r, 20));
    expect(woken).toBe(false);
    announce("c2");
    await waiting;
    expect(woken).toBe(true);
    changes.close();
  });

  it("ends a quiet wait at its time-out or on abort, and forgets a closed subscription", async () => {
    const changes = subscribeChainChanges("c3");
    await changes.next(10, new AbortController().signal);
    const abort = new AbortController();
    const waiting = changes.next(5_000, abort.signal);
    abort.abort();
    await waiting;
    changes.close();
    const registry = existingSingleton<{ waiters: Map<string, unknown> }>("chainEvents");
    expect(registry?.waiters.has("c3")).toBe(false);
  });
});
