// The demo's nested marker (docs/markers.md): an agent's context already carries a marker of
// another store (an upstream proxy compressed a tool's output; its original is not here). The
// agent compresses that context with the SDK's cached originals, then compresses the result
// again. The first marker names an original whose own marker leads nowhere: retrieving it gives
// back a marker this store cannot resolve, not the tool's output (the shape of
// headroomlabs-ai/headroom#1077). The second pass's nesting is whole (its inner marker's original
// is held: one more retrieval). The last pass hands the result to a sub-agent whose tools
// cannot retrieve at all.
import { summarise } from "../lib/compressors/summarise";
import type { Floorline, FloorlineOptions } from "../sdk/typescript/src/index";
import { INCIDENT_REPORT } from "./incident-report";

/** The part of demo/scenarios.ts's DemoEnv this chain needs (named here: scenarios.ts imports this file). */
interface MarkerEnv {
  client(options?: Partial<FloorlineOptions>): Floorline;
  id(name: string): string;
  classes: { summary: string };
  startChain(minutesAgo: number): void;
}

/** A tool's output as an upstream proxy left it: its marker names an original of that proxy's store. */
const UPSTREAM_TOOL_OUTPUT =
  "The deploy log of orders-api was compressed upstream: [212 lines compressed to 3. Retrieve more: hash=5e1f0c7a9b2d4e6f8a0c1e3f]";

export async function nestedMarker(env: MarkerEnv): Promise<{ chain: string; what: string }> {
  env.startChain(8);
  const fl = env.client({ cacheOriginals: true, sendContent: true });
  // A class of its own, as the opaque compactor's: this chain must not move the summary class's what-if or recommendation.
  const chain = fl.chain(env.id("nested-marker"), { contentClass: `${env.classes.summary}-markers` });
  await chain.ready();
  // The context: the report, and a tool's output an upstream store compressed (its original is not here).
  const context = `${INCIDENT_REPORT}\n${UPSTREAM_TOOL_OUTPUT}`;
  // The context is cached; the summary carries its marker.
  const first = chain.recordPass(context, summarise(context, 0.6), { density: 0.9 });
  // Each original is stored before the receipt whose marker names it is judged.
  await fl.flush();
  // The summary, marker and all, compressed again: its own original is cached with the marker inside.
  const second = chain.recordPass(first.output, summarise(first.output, 0.85), { density: 0.85 });
  await fl.flush();
  // Handed to a sub-agent that has no retrieve tool.
  chain.recordPass(second.output, summarise(second.output, 0.95), {
    density: 0.8,
    contextTools: ["read_file", "run_tests"],
  });
  await fl.flush();
  return {
    chain: chain.id,
    what: `a marker inside a marker (${second.originalKey}), then handed to a sub-agent without a retrieve tool`,
  };
}
