// `npm run bench:facts`: server time of the facts ledger (docs/facts.md) for a chain of 1,000
// passes whose source states more than 10,000 facts (the ledger keeps the 10,000 heaviest):
// `GET /api/v1/chains/{id}/facts` (its handler, in process: parse, authorise, query, answer)
// unfiltered, by fate, searched and deep in the keyset, and the Facts tab's reads (the ledger's
// counts and a page) with the chart's facts line. Target: under 300 ms each (median and p95
// printed beside it). The chain is made through the ingest use case (ingestPasses: measured in
// the pool, folded into the ledger), whose time is printed too. Runs on the embedded database,
// and on PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is set. BENCH_FACTS_PASSES
// changes the number of passes.
import { performance } from "node:perf_hooks";
import { closeDb, openDatabase, setHandle, summariesSettled } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { getFactLedger, getFactSeries, listChainFacts } from "@/db/queries/chain-facts";
import { GET as getFacts } from "@/app/api/v1/chains/[chain_id]/facts/route";
import { sha256Hex } from "@/lib/guard/hash";
import { encodeCursor } from "@/lib/http/cursor";
import type { PassReceipt } from "@/lib/schemas/passes";
import { factStates } from "@/lib/measure/fact-ledger";
import { measureDetailed } from "@/lib/measure/index";
import { contentBatches } from "./support/content-receipts";
import { adminUrlFromEnv, createDatabase, unreachableReason } from "./support/postgres";
import { median, printTable } from "./support/report";

const TARGET_MS = 300;
const PASSES = Number(process.env.BENCH_FACTS_PASSES ?? 1_000);
const LINES = 5_200;
const BATCH = 50;
const RUNS = 25;
const CHAIN = "bench-facts";
// The route is called as an API client would: with a key of scope read (here the legacy token).
const TOKEN = "bench-facts-token";
process.env.FLOORLINE_API_TOKEN = TOKEN;

/** Two facts a line (an id and a port), each line its own: more than 10,000 facts in all. */
const lines = Array.from({ length: LINES }, (_, i) => `node n${100_000 + i} listens on port ${20_000 + i}`);
const SOURCE = `${lines.join(".\n")}.`;
/**
 * Which pass loses line i, spread over the chain: each pass of the first half loses a few more
 * lines, a restore at the middle brings them all back, and the second half loses them again at
 * half the pace. At the end about a quarter is lost (and was restored once), a quarter restored
 * and half retained throughout.
 */
const HALF = Math.floor(PASSES / 2);
const lostAt = lines.map((_, i) => 2 + ((i * 7_919) % (PASSES - 2)));

function content(n: number): string {
  if (n === 1 || n === HALF) return SOURCE;
  const k = n < HALF ? n : 2 + Math.floor((n - HALF) / 2);
  return `${lines.filter((_, i) => (lostAt[i] as number) > k).join(".\n")}.`;
}

function receipt(n: number): PassReceipt {
  const text = content(n);
  return {
    chain_id: CHAIN,
    pass_id: `${CHAIN}.p${n}`,
    pass_number: n,
    current_content_hash: sha256Hex(text),
    current_size_bytes: Buffer.byteLength(text),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    content_class: "bench-facts",
    content: text,
    ...(n === 1 ? { input_content: SOURCE } : {}),
  } as PassReceipt;
}

async function timed(run: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: median(times), p95: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)] ?? 0 };
}

async function route(query: string): Promise<void> {
  const response = await getFacts(
    new Request(`http://localhost/api/v1/chains/${CHAIN}/facts${query}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }),
    {
      params: Promise.resolve({ chain_id: CHAIN }),
    },
  );
  if (response.status !== 200) throw new Error(`facts route answered ${response.status}: ${await response.text()}`);
  await response.json();
}

async function benchOn(label: string, config: Parameters<typeof openDatabase>[0]): Promise<void> {
  setHandle(openDatabase(config));
  try {
    const started = performance.now();
    for (let from = 1; from <= PASSES; from += BATCH) {
      const receipts = Array.from({ length: Math.min(BATCH, PASSES - from + 1) }, (_, i) => receipt(from + i));
      await ingestPasses(receipts, { readsOriginals: true });
    }
    await summariesSettled();
    const seeded = performance.now() - started;
    const ledger = await getFactLedger(CHAIN);
    if (!ledger) throw new Error("no ledger was made");
    console.log(
      `\n${label}: ${PASSES} passes ingested in ${(seeded / 1000).toFixed(1)} s (${(seeded / PASSES).toFixed(1)} ms a pass, measured and folded); ` +
        `ledger keeps ${ledger.kept.toLocaleString("en")} of ${ledger.in_source.toLocaleString("en")} facts, ${ledger.passes_folded} passes folded; ` +
        `fates ${JSON.stringify(ledger.counts)}`,
    );
    const deep = encodeCursor([ledger.kept - 100]);
    const cases: [string, () => Promise<unknown>][] = [
      ["route: first page", () => route("")],
      ["route: fate=lost", () => route("?fate=lost")],
      ["route: fate=restored, limit=500", () => route("?fate=restored&limit=500")],
      ["route: q= (a rare piece)", () => route("?q=n105123")],
      ["route: q= matching nothing", () => route("?q=nothing-here")],
      ["route: deep cursor", () => route(`?cursor=${deep}`)],
      [
        "facts tab: counts + page + chart line",
        () => Promise.all([getFactLedger(CHAIN), listChainFacts(CHAIN, { limit: 50 }), getFactSeries(CHAIN)]),
      ],
    ];
    const rows: string[][] = [];
    for (const [name, run] of cases) {
      const { median: m, p95 } = await timed(run);
      rows.push([name, m.toFixed(1), p95.toFixed(1), `< ${TARGET_MS}`, p95 < TARGET_MS ? "met" : "NOT met"]);
    }
    printTable(["server time (ms)", "median", "p95", "target", "p95 vs target"], rows);
  } finally {
    await closeDb();
  }
}

/**
 * What the ledger adds to a measured pass in its measurement thread: the fact states beside the
 * measurement, on bench:ingest's content case (4 KiB logs against their chain's source), in
 * process, each side timed over the same passes after a warm-up round.
 */
function measurementCost(): void {
  const [batch] = contentBatches({
    prefix: "cost",
    chains: 50,
    passesPerBatch: 8,
    batches: 1,
    contentBytes: 4096,
    contentClass: "cost",
    withContent: true,
    seed: 7,
  });
  const sources = new Map<string, string>();
  for (const r of batch ?? []) if (r.input_content) sources.set(r.chain_id, r.input_content);
  const passes = (batch ?? []).flatMap((r) => {
    const source = sources.get(r.chain_id);
    return source && r.content ? [{ content: r.content, source }] : [];
  });
  const time = (run: (p: { content: string; source: string }) => unknown) => {
    for (const p of passes) run(p);
    const start = performance.now();
    for (let round = 0; round < 5; round++) for (const p of passes) run(p);
    return ((performance.now() - start) * 1000) / (5 * passes.length);
  };
  const measured = time((p) => measureDetailed(p.content, { source: p.source }));
  const states = time((p) => factStates(p.content, { source: p.source }));
  console.log(
    `\nmeasurement thread, per 4 KiB pass (${passes.length} passes of bench:ingest's content case): measure ${measured.toFixed(0)} us, ` +
      `the ledger's fact states ${states.toFixed(0)} us more (+${Math.round((states / measured) * 100)}%)`,
  );
}

measurementCost();
await benchOn("embedded (PGlite)", { dataDir: "memory://" });
const admin = adminUrlFromEnv();
if (admin) {
  const reason = await unreachableReason(admin);
  if (reason) console.log(`\nPostgreSQL skipped: ${reason}`);
  else {
    const db = await createDatabase(admin, "bench_facts");
    try {
      await benchOn("PostgreSQL", { url: db.url });
    } finally {
      await db.drop();
    }
  }
}
process.exit(0);
