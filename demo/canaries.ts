// The demo's opaque compactor, measured by canaries (docs/canaries.md): a compaction whose
// output the agent cannot read (encrypted, as OpenAI's compaction item is), so no measurement
// of it is possible. The agent plants canaries in its context before each compaction and checks
// what it goes on to say after it: the chain shows what the compactor kept, pass by pass.
import { sha256Hex } from "../lib/guard/hash";
import { sentences } from "../lib/compressors/summarise";
import type { Floorline } from "../sdk/typescript/src/index";
import { INCIDENT_REPORT } from "./incident-report";

/**
 * The compactor in the provider's hands, keeping the latest share of the context (what it keeps
 * never reaches the agent in clear: only the agent's next words show it).
 */
function opaqueCompaction(context: string, keep: number): { blob: string; kept: string } {
  const all = sentences(context);
  const kept = all.slice(all.length - Math.max(1, Math.ceil(all.length * keep))).join(" ");
  return { blob: Buffer.from(`enc:${sha256Hex(kept)}:${kept}`).toString("base64"), kept };
}

/** The part of demo/scenarios.ts's DemoEnv this chain needs (named here: scenarios.ts imports this file). */
interface CanaryEnv {
  client(): Floorline;
  id(name: string): string;
  classes: { summary: string };
  startChain(minutesAgo: number): void;
}

export async function opaqueCanaries(env: CanaryEnv): Promise<{ chain: string; what: string }> {
  env.startChain(12);
  // A class of its own: its claimed density of 1 is no measurement, and must not move the summary class's recommendation.
  const chain = env.client().chain(env.id("opaque-canaries"), { contentClass: `${env.classes.summary}-opaque` });
  await chain.ready();
  // Planted once, where the report states its facts: four sentences among its own.
  let context = chain.plantCanaries(INCIDENT_REPORT, { count: 4 });
  const retained: string[] = [];
  for (const keep of [0.75, 0.8, 0.85]) {
    const { blob, kept } = opaqueCompaction(context, keep);
    // What the agent says next is all that shows what the compaction kept.
    const next = `Continuing the incident review from the compacted context. ${kept}`;
    const pass = chain.recordOpaquePass({
      sizeBytes: Buffer.byteLength(blob),
      hash: sha256Hex(blob),
      canaryCheck: chain.checkCanaries(next),
      metadata: { compactor: "provider-side, encrypted" },
    });
    retained.push(`${pass.canaryCheck?.surviving.length ?? 0}/4`);
    context = kept;
  }
  return { chain: chain.id, what: `an opaque compactor; canaries surviving ${retained.join(", ")}` };
}
