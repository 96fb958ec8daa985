// The scripted agent of test_cross_sdk.py, in TypeScript: `{url, script}` as JSON on stdin, what
// the agent saw as JSON on stdout. agent_py() in the test is the same agent in Python.
import { readFileSync } from "node:fs";
import { Floorline, type PassResult } from "../../typescript/src/index";

interface PassSpec {
  output: string;
  density?: number;
  no_input?: boolean;
  metadata?: Record<string, unknown>;
}
interface ChainSpec {
  id: string;
  class: string;
  mode: "record" | "until_floor";
  source: string;
  passes: PassSpec[];
  on_breach?: "halt" | "restore" | "accept_loss";
  metadata?: Record<string, unknown>;
}
interface Script {
  clock: string;
  cache_originals: boolean;
  send_content: boolean;
  policies: Record<string, never>;
  chains: ChainSpec[];
  trace: never[];
}

const { url, script } = JSON.parse(readFileSync(0, "utf8")) as { url: string; script: Script };
let now = Date.parse(script.clock);
const fl = new Floorline({
  url,
  cacheOriginals: script.cache_originals,
  sendContent: script.send_content,
  policies: script.policies,
  clock: () => {
    now += 1000;
    return new Date(now);
  },
  flushOnExit: false,
  scheduledDelayMs: 50,
});

const seen = (r: PassResult) => ({
  pass_id: r.receipt.pass_id,
  verdict: r.verdict,
  directive: r.directive,
  manifest_digest: r.manifestDigest,
  output: r.output,
  density: r.receipt.semantic_density_score,
  measured: r.measured,
  original_key: r.originalKey,
});

const chains = [];
for (const spec of script.chains) {
  const chain = fl.chain(spec.id, { contentClass: spec.class, metadata: spec.metadata });
  if (spec.mode === "record") {
    await chain.ready();
    let input: string = spec.source;
    const passes = [];
    for (const p of spec.passes) {
      const r = chain.recordPass(p.no_input ? null : input, p.output, { density: p.density, metadata: p.metadata });
      passes.push(seen(r));
      input = r.output;
    }
    chains.push({ id: spec.id, passes });
  } else {
    let n = 0;
    const outcome = await chain.compressUntilFloor(
      spec.source,
      () => {
        const p = spec.passes[n++] as PassSpec;
        return p.density === undefined ? p.output : { output: p.output, density: p.density };
      },
      spec.on_breach ? { onBreach: () => spec.on_breach as "halt" } : {},
    );
    chains.push({
      id: spec.id,
      passes: outcome.passes.map(seen),
      content: outcome.content,
      strategy: outcome.strategy,
      boundary: outcome.boundary,
    });
  }
}
const trace = fl.distill(script.trace);
const firstKey = chains.flatMap((c) => c.passes).find((p) => p.original_key)?.original_key;
const retrieved = firstKey ? await fl.retrieve(firstKey) : null;
const report = await fl.close({ timeoutMs: 20_000 });
process.stdout.write(
  JSON.stringify({
    chains,
    trace: { trace_id: trace.trace_id, residual_digest: trace.residual_digest },
    retrieved: retrieved && { hash: retrieved.hash, original: retrieved.original },
    report,
  }),
);
