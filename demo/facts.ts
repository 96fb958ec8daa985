// The demo's restore that brings facts back (docs/facts.md): an agent that sends each pass's
// content, and caches each pass's input as an original its output's marker names, summarises
// an incident report until its guard finds a breach, restores the pass before it, and goes on
// from the restored text with a gentler summary. The facts the breaching pass dropped come back
// at the next pass, and what that pass drops in turn is recoverable from its input's original:
// the chain's Facts tab shows each fact first lost, restored, or recoverable and from where.
import { summarise } from "../lib/compressors/summarise";
import type { Floorline, FloorlineOptions } from "../sdk/typescript/src/index";
import { INCIDENT_REPORT } from "./incident-report";

/** The part of demo/scenarios.ts's DemoEnv this chain needs (named here: scenarios.ts imports this file). */
interface FactsEnv {
  client(options?: Partial<FloorlineOptions>): Floorline;
  id(name: string): string;
  classes: { summary: string };
  startChain(minutesAgo: number): void;
}

export async function restoredFacts(env: FactsEnv): Promise<{ chain: string; what: string }> {
  env.startChain(8);
  const fl = env.client({ sendContent: true });
  // A class of its own: a chain that restores must not move the summary class's recommendation.
  const contentClass = `${env.classes.summary}-restored`;
  const chain = fl.chain(env.id("facts-restored"), { contentClass });
  await chain.ready();
  const first = chain.recordPass(INCIDENT_REPORT, summarise(INCIDENT_REPORT, 0.8));
  // Too deep a cut: the guard finds a breach, and the step restores pass 1's output.
  const cut = chain.recordPass(first.output, summarise(first.output, 0.3));
  chain.recordBoundary({
    pass_number: cut.receipt.pass_number,
    strategy: "restore",
    reason: cut.directive,
    restore_pass_id: first.receipt.pass_id,
  });
  // The next pass starts from the restored text, as a restore asks, and keeps more of it.
  const back = chain.recordPass(first.output, summarise(first.output, 0.9));
  await fl.flush();
  // A later step caches its input as an original and hands on a shorter text with its marker:
  // what it drops, that original still states.
  const cached = env.client({ sendContent: true, cacheOriginals: true });
  const last = cached
    .chain(chain.id, { contentClass, resumeAfter: back.receipt.pass_number, source: INCIDENT_REPORT })
    .recordPass(back.output, summarise(back.output, 0.6));
  await cached.flush();
  return {
    chain: chain.id,
    what: `pass ${cut.receipt.pass_number} cut too deep (${cut.verdict}), restored; pass ${back.receipt.pass_number} from the restored text brings its facts back, pass ${last.receipt.pass_number} leaves some recoverable`,
  };
}
