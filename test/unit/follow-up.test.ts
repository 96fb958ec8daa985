// The summariser's scheduling (db/follow-up.ts): a lone request runs at once, requests made
// during a run coalesce into one more run, runs under a stream of requests keep their
// interval unless a reader waits, and a failed run releases its readers.
import { describe, expect, it } from "vitest";
import { FollowUp } from "@/db/follow-up";

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function recorder() {
  const starts: number[] = [];
  let release: (() => void) | null = null;
  const job = () => {
    starts.push(performance.now());
    return new Promise<void>((r) => (release = r));
  };
  return { starts, job, finish: () => release?.() };
}

describe("FollowUp", () => {
  it("runs a lone request at once and coalesces the requests made during a run into one", async () => {
    const errors: unknown[] = [];
    const f = new FollowUp((e) => errors.push(e));
    const r = recorder();
    f.request(r.job);
    await tick();
    expect(r.starts).toHaveLength(1);
    f.request(r.job);
    f.request(r.job);
    f.request(r.job);
    const settled = f.settled();
    r.finish();
    await tick();
    expect(r.starts).toHaveLength(2);
    r.finish();
    await settled;
    expect(r.starts).toHaveLength(2);
    expect(errors).toEqual([]);
  });

  it("keeps the interval between runs under a stream of requests, but a waiting reader starts the next at once", async () => {
    // An interval no test run outlasts: a second run seen at all was started by the reader.
    const f = new FollowUp(() => {}, 60_000);
    const r = recorder();
    f.request(r.job);
    await tick();
    r.finish();
    await tick();
    f.request(r.job);
    await tick(100);
    // Still within the interval: nothing has run again.
    expect(r.starts).toHaveLength(1);
    const settled = f.settled();
    await tick();
    expect(r.starts).toHaveLength(2);
    r.finish();
    await settled;
  });

  it("releases its readers when a run fails, and runs again on the next request", async () => {
    const errors: unknown[] = [];
    const f = new FollowUp((e) => errors.push(e));
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error("database gone");
    };
    f.request(failing);
    await f.settled();
    expect(errors).toHaveLength(1);
    f.request(failing);
    await f.settled();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(2);
  });

  it("resolves a reader at once when nothing was asked", async () => {
    const f = new FollowUp(() => {}, 10_000);
    await expect(Promise.race([f.settled().then(() => "done"), tick(50).then(() => "late")])).resolves.toBe("done");
  });
});
