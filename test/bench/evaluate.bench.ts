// `npm run bench:evaluate`: a 10,000-item `POST /api/v1/evaluate` to the built app over real
// HTTP (request sent, answer read and parsed) against the in-process guard evaluating the
// same items, alternating round by round, and the ratio of their rates. The HTTP side pays
// for what a client pays for: serialising, parsing, validating, answering; the ratio says
// how much of the guard's speed survives the trip. Each timed call starts on a collected heap
// (the collection is not timed): alternating, each side would otherwise be charged for the
// other's garbage, the HTTP side's 10,000 parsed answers or the in-process side's 10,000
// manifests.
//
// Also timed, for what it tells and not for the verdict: the same request to a plain Node
// server (a process of its own) that reads the body and answers the stored answer's bytes.
// That is the trip's floor on this machine, which no evaluation can go below; the app's time
// above it is what evaluating costs over HTTP.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { evaluatePass, type CompressionPass, type CompressionPolicy } from "@/lib/guard/guard";
import { seededRandom } from "./support/receipts";
import { formatRate, median, printTable, ratioLine } from "./support/report";
import { findFreePort, startApp } from "./support/server";

const DIST_DIR = process.env.NEXT_DIST_DIR || ".next-bench";
const PORTS = [3450, 3499] as const;
const FLOOR_PORTS = [3400, 3449] as const;
const ITEMS = 10_000;
const ROUNDS = Number(process.env.EVALUATE_ROUNDS ?? 25);
// Requests before the timed ones: the server's round trip settles only after about twenty
// (its two threads' compiled code, its heap's sizing); timed from the fourth, the first fifteen
// took 28 ms and the next forty-five 22-26.
const WARMUP = 20;
const TARGET = 0.3;

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

function buildItems(): { pass: CompressionPass; policy: CompressionPolicy }[] {
  const random = seededRandom(42);
  return Array.from({ length: ITEMS }, (_, i) => ({
    pass: {
      pass_id: `agent-${i % 97}.pass-${i}`,
      pass_number: Math.floor(random() * 12),
      current_content_hash: `sha256:${(i * 2654435761).toString(16).padStart(16, "0")}`,
      current_size_bytes: Math.floor(random() * 50_000),
      is_parseable: random() > 0.05,
      schema_valid: random() > 0.05,
      semantic_density_score: Math.round(random() * 1e6) / 1e6,
    },
    policy: {
      min_size_bytes: 256 + (i % 5) * 128,
      min_semantic_density: 0.3 + (i % 4) * 0.05,
      max_pass_number: 6 + (i % 3),
    },
  }));
}

// Reads each request's body whole, then answers the file's bytes as JSON.
const FLOOR_SERVER = `
const http = require("node:http");
const answer = require("node:fs").readFileSync(process.argv[1]);
http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(answer);
  });
}).listen(Number(process.argv[2]), "127.0.0.1", () => console.log("ready"));`;

/** The plain server of FLOOR_SERVER answering `answerFile` on `port`; resolves once it listens. */
function startFloorServer(answerFile: string, port: number): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", FLOOR_SERVER, answerFile, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the floor server exited with ${code}`)));
    child.stdout.once("data", () => resolve({ url: `http://127.0.0.1:${port}/`, stop: () => child.kill() }));
  });
}

async function main(): Promise<void> {
  const items = buildItems();
  const body = JSON.stringify(items);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "floorline-evaluate-"));
  const port = await findFreePort(...PORTS);
  console.log(`starting the app on port ${port} (builds ${DIST_DIR} first when stale)...`);
  const app = await startApp({
    port,
    distDir: DIST_DIR,
    env: { DATABASE_URL: "", FLOORLINE_DATA_DIR: dataDir, FLOORLINE_DEMO: "0", NODE_ENV: "production" },
  });
  let floorServer: { url: string; stop: () => void } | undefined;
  try {
    const expected = JSON.stringify(items.map((item) => evaluatePass(item.pass, item.policy)));
    const answerFile = path.join(dataDir, "answer.json");
    writeFileSync(answerFile, expected);
    floorServer = await startFloorServer(answerFile, await findFreePort(...FLOOR_PORTS));
    const post = async (url: string) => {
      const start = process.hrtime.bigint();
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const answer = (await response.json()) as unknown[];
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (response.status !== 200 || answer.length !== ITEMS) throw new Error(`${url} answered ${response.status}`);
      return { ms, answer };
    };
    const http = () => post(`${app.baseUrl}/api/v1/evaluate`);
    const floorUrl = floorServer.url;
    const floor = () => post(floorUrl);
    const local = () => {
      const start = process.hrtime.bigint();
      const answer = items.map((item) => evaluatePass(item.pass, item.policy));
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, answer };
    };
    const first = await http();
    if (JSON.stringify(first.answer) !== expected) throw new Error("the API and the in-process guard disagree");
    for (let i = 0; i < WARMUP; i++) {
      await http();
      local();
    }
    const httpMs: number[] = [];
    const localMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      collectGarbage();
      httpMs.push((await http()).ms);
      collectGarbage();
      localMs.push(local().ms);
    }
    // After the measured rounds, not between them: a third request in each round would leave its
    // answer's garbage to be collected while the next side is timed.
    const floorMs: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      collectGarbage();
      const { ms } = await floor();
      if (i >= WARMUP) floorMs.push(ms);
    }
    const httpRate = (ITEMS / median(httpMs)) * 1000;
    const localRate = (ITEMS / median(localMs)) * 1000;
    console.log(
      `\n${ITEMS.toLocaleString("en-US")} items a request (${(Buffer.byteLength(body) / 1024).toFixed(0)} KiB), median of ${ROUNDS}; load average ${(os.loadavg()[0] ?? 0).toFixed(1)}`,
    );
    printTable(
      ["side", "median ms", "evaluations/s"],
      [
        ["POST /api/v1/evaluate (HTTP)", median(httpMs).toFixed(1), formatRate(httpRate)],
        ["evaluatePass in process", median(localMs).toFixed(1), formatRate(localRate)],
        ["HTTP floor: a plain server answering the stored answer", median(floorMs).toFixed(1), "-"],
      ],
    );
    const beyondFloor = median(httpMs) - median(floorMs);
    console.log(
      `the app's trip is ${beyondFloor.toFixed(1)} ms above the floor (evaluating over HTTP), against ` +
        `${median(localMs).toFixed(1)} ms in process; the floor alone caps the ratio at ` +
        `${(median(localMs) / median(floorMs)).toFixed(2)} on this machine (not part of the verdict)`,
    );
    console.log(ratioLine("HTTP / in-process", httpRate / localRate, TARGET));
  } finally {
    floorServer?.stop();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
