// `npm run bench:markers`: what the marker findings (docs/markers.md) add to the ingest of
// receipts with markers. The same receipts (content of about 2 KiB with two CCR markers naming
// stored originals, SHA-256 input hashes) go through the ingest use case (ingestPasses, then
// the summariser) twice per round, alternately: as they are, and with their markers and hashes
// made unrecognisable (`hash~` for `hash=`, `h:` before the input hash and before the pass's
// own hash, so that each pass still follows the one before and no hash mismatch is judged
// instead), which leaves every other step the same and skips the findings' work (reading the
// markers, the lookup by hash, the passes' markers written). Target: with findings at least
// 0.9 of the receipts/s without, that is at most 10% added. Runs on the embedded database, and
// on PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is set. BENCH_MARKER_RECEIPTS
// changes the receipts per round, BENCH_MARKER_ROUNDS the rounds (more, for a steadier ratio on
// a busy machine). On the embedded database the process's CPU time a round is printed beside:
// the database runs in this process, so it counts the same work whatever else loads the machine.
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { closeDb, getDb, openDatabase, setHandle, summariesSettled } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";
import { formatMarker, markerKey } from "@/lib/originals/marker";
import type { PassReceipt } from "@/lib/schemas/passes";
import { adminUrlFromEnv, createDatabase, unreachableReason } from "./support/postgres";
import { formatRate, median, printTable, ratioLine } from "./support/report";

const TARGET = 0.9;
const RECEIPTS = Number(process.env.BENCH_MARKER_RECEIPTS ?? 2_000);
const BATCH = 500;
const PASSES_PER_CHAIN = 10;
const ROUNDS = Number(process.env.BENCH_MARKER_ROUNDS ?? 5);
const ORIGINALS = 200;

const originalText = (i: number) =>
  Array.from({ length: 40 }, (_, k) => `row ${i}-${k}: worker-${k % 8} handled request ${i * 97 + k}`).join("\n");
const markers = Array.from({ length: ORIGINALS }, (_, i) => formatMarker(markerKey(sha256Hex(originalText(i)))));

/**
 * How a chain's passes carry markers: `carried`, the two markers of the chain's tool outputs
 * stay in its context pass after pass (as a compressed context keeps them); `fresh`, every pass
 * names two other originals (the worst case: nothing is the same from pass to pass).
 */
type Shape = "carried" | "fresh";

function content(chain: number, n: number, shape: Shape): string {
  const body = Array.from(
    { length: 24 },
    (_, k) =>
      `Step ${n}.${k} of chain ${chain}: the agent read the build log and kept error E${(chain * 31 + k) % 997}.`,
  ).join(" ");
  const step = shape === "carried" ? 0 : n;
  return `${body}\n${markers[(chain + step) % ORIGINALS]}\n${markers[(chain * 7 + 1 + step) % ORIGINALS]}`;
}

/** A round's receipts: chains of PASSES_PER_CHAIN passes, each pass's input the previous output. */
function receipts(prefix: string, markersOn: boolean, shape: Shape): PassReceipt[] {
  const out: PassReceipt[] = [];
  for (let c = 0; out.length < RECEIPTS; c++) {
    let previous: string | null = null;
    for (let n = 1; n <= PASSES_PER_CHAIN && out.length < RECEIPTS; n++) {
      const raw = content(c, n, shape);
      const text = markersOn ? raw : raw.replaceAll("hash=", "hash~");
      const inputHash = previous === null ? null : sha256Hex(previous);
      out.push({
        chain_id: `${prefix}-${c}`,
        pass_id: `${prefix}-${c}.p${n}`,
        pass_number: n,
        current_content_hash: markersOn ? sha256Hex(text) : `h:${sha256Hex(text)}`,
        current_size_bytes: Buffer.byteLength(text),
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9,
        content_class: "bench-markers",
        ...(inputHash === null ? {} : { input_content_hash: markersOn ? inputHash : `h:${inputHash}` }),
        content: text,
      } as PassReceipt);
      previous = text;
    }
  }
  return out;
}

/** A round's wall time and this process's CPU time (its threads included), in ms. */
async function ingestRound(list: readonly PassReceipt[], checkpoint: boolean): Promise<{ ms: number; cpuMs: number }> {
  // On the embedded database a checkpoint first, uncounted: a round then reuses the log's
  // segments as a running server does, instead of one side paying to create each new one (85 ms
  // of CPU) because the alternation happened to put it there. (A bench's PostgreSQL role may not checkpoint.)
  if (checkpoint) await (await getDb()).execute(sql`checkpoint`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < list.length; i += BATCH) await ingestPasses(list.slice(i, i + BATCH));
  await summariesSettled();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

async function benchOn(label: string, config: Parameters<typeof openDatabase>[0], inProcess: boolean): Promise<void> {
  setHandle(openDatabase(config));
  try {
    for (let i = 0; i < ORIGINALS; i++) await storeOriginal({ original: originalText(i) });
    const rows: string[][] = [];
    const ratios: string[] = [];
    for (const shape of ["carried", "fresh"] as const) {
      // A warm-up of each, not counted: plans, caches, the pool.
      await ingestRound(receipts(`warm-with-${shape}`, true, shape).slice(0, BATCH), inProcess);
      await ingestRound(receipts(`warm-without-${shape}`, false, shape).slice(0, BATCH), inProcess);
      const withMs: number[] = [];
      const withoutMs: number[] = [];
      const withCpu: number[] = [];
      const withoutCpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating, so that a slower moment of a shared machine falls on both.
        const a = () =>
          ingestRound(receipts(`with-${shape}-${round}`, true, shape), inProcess).then((r) => {
            withMs.push(r.ms);
            withCpu.push(r.cpuMs);
          });
        const b = () =>
          ingestRound(receipts(`without-${shape}-${round}`, false, shape), inProcess).then((r) => {
            withoutMs.push(r.ms);
            withoutCpu.push(r.cpuMs);
          });
        if (round % 2 === 0) {
          await a();
          await b();
        } else {
          await b();
          await a();
        }
      }
      const rate = (ms: number) => (RECEIPTS / ms) * 1000;
      const withRate = rate(median(withMs));
      const withoutRate = rate(median(withoutMs));
      const cpu = (values: number[]) => (inProcess ? [median(values).toFixed(0)] : []);
      rows.push(
        [`${shape}: markers, with the findings`, formatRate(withRate), median(withMs).toFixed(0), ...cpu(withCpu)],
        [`${shape}: markers unrecognised`, formatRate(withoutRate), median(withoutMs).toFixed(0), ...cpu(withoutCpu)],
      );
      ratios.push(
        shape === "carried"
          ? ratioLine("markers carried along each chain, with findings / without", withRate / withoutRate, TARGET)
          : `new markers every pass (worst case), with findings / without: ${(withRate / withoutRate).toFixed(2)}`,
      );
      if (inProcess)
        ratios.push(
          `${shape === "carried" ? "carried" : "new every pass"}, by CPU time, without / with: ${(median(withoutCpu) / median(withCpu)).toFixed(2)}`,
        );
    }
    console.log(
      `\n${label}: ${RECEIPTS} receipts a round with two markers each, ${ROUNDS} rounds, batches of ${BATCH}`,
    );
    printTable(
      ["ingest (median of rounds)", "receipts/s", "ms a round", ...(inProcess ? ["CPU ms a round"] : [])],
      rows,
    );
    for (const line of ratios) console.log(line);
  } finally {
    await closeDb();
  }
}

async function main(): Promise<void> {
  await benchOn("embedded database (PGlite)", { dataDir: "memory://" }, true);
  const admin = adminUrlFromEnv();
  if (!admin) {
    console.log("\nPostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
    return;
  }
  const unreachable = await unreachableReason(admin);
  if (unreachable) {
    console.log(`\nPostgreSQL: skipped (${unreachable})`);
    return;
  }
  const db = await createDatabase(admin, "bench_markers");
  try {
    await benchOn("PostgreSQL", { url: db.url }, false);
  } finally {
    await db.drop();
  }
}

await main();
