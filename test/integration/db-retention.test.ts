// What a finished transaction returned is garbage once its caller lets go of it: the pool
// must not keep it (postgres.js keeps each connection's last transaction result reachable
// until that connection's next transaction; db/index.ts hands the result out beside it).
// A 5,000-receipt ingest returns its stored rows, so ten connections could otherwise hold
// ten batches between bursts of ingest.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/index";
import { driver } from "../support/database";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let handle: Awaited<ReturnType<typeof openDatabase>>;
beforeAll(async () => {
  handle = await openDatabase(
    driver === "postgres" ? { url: process.env.TEST_DATABASE_URL } : { dataDir: "memory://" },
  );
});
afterAll(async () => {
  await handle?.close();
});

async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5 && ref.deref(); i++) {
    // A WeakRef holds its target until the current job ends.
    await new Promise((r) => setTimeout(r, 10));
    gc();
  }
  return ref.deref() === undefined;
}

describe(`transaction results are not retained (${driver})`, () => {
  it("lets a returned result be collected once the caller drops it", async () => {
    // In a function of its own, so no register of this test's suspended frame holds a result.
    const transactionsThenRefs = async () => {
      const refs: WeakRef<object>[] = [];
      // More transactions than the pool has connections, one after another and side by side.
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 4 }, () =>
            handle.db.transaction(async (tx) => {
              await tx.execute(sql`select 1`);
              return { rows: Array.from({ length: 100 }, (_, i) => ({ i })) };
            }),
          ),
        );
        for (const result of results) refs.push(new WeakRef(result));
      }
      return refs;
    };
    const refs = await transactionsThenRefs();
    expect(refs).toHaveLength(12);
    let kept = 0;
    for (const ref of refs) if (!(await collected(ref))) kept++;
    expect(kept).toBe(0);
  });

  it("still returns what the transaction returned, and still rolls back on a throw", async () => {
    expect(await handle.db.transaction(async (tx) => (await tx.execute(sql`select 1 as one`)) && 42)).toBe(42);
    await expect(
      handle.db.transaction(async () => {
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
  });
});
