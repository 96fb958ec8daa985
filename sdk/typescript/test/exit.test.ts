// A process that records and then simply ends (or is sent SIGTERM) still delivers: the SDK
// flushes on beforeExit and on signals.
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeServer, fakeServer, receiptsIn } from "./fake-server";
import { DIST_ENTRY } from "./load";

let server: FakeServer;
beforeEach(async () => {
  server = await fakeServer();
});
afterEach(async () => {
  await server.close();
});

function agent(script: string): Promise<{ code: number | null; signal: string | null; output: string }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, SDK: DIST_ENTRY, URL: server.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  if (script.includes("READY")) {
    child.stdout.on("data", (c) => {
      if (String(c).includes("READY")) child.kill("SIGTERM");
    });
  }
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, output })));
}

const RECORD = `
const { Floorline } = await import(process.env.SDK);
const fl = new Floorline({ url: process.env.URL });
const chain = fl.chain("exit-1");
for (let i = 0; i < 130; i++) chain.recordPass("in" + i, "out" + i, { density: 0.9 });
`;

describe("flush at exit", () => {
  it("delivers every receipt of a process that ends right after recording", async () => {
    const result = await agent(RECORD);
    expect(result).toMatchObject({ code: 0 });
    expect(receiptsIn(server.seen)).toHaveLength(130);
  });

  it("delivers on SIGTERM, then exits by the signal as it would have", async () => {
    const result = await agent(`${RECORD}\nsetInterval(() => {}, 1000); console.log("READY");`);
    expect(result.signal).toBe("SIGTERM");
    expect(receiptsIn(server.seen)).toHaveLength(130);
  });
});
