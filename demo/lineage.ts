// The demo's lineage (docs/lineage.md): an agent's first context works on a slow export and
// distils what it found; after a compaction its successor, which names the first trace as its
// parent, tries the pool size again and doubts the proxy limit the first had proved. Both
// traces go through the TypeScript SDK's distill, as an agent sends them.
import type { DemoEnv } from "./scenarios";

export function runDemoLineage(env: DemoEnv): { parent: string; successor: string } {
  const client = env.client();
  const chainId = env.id("lineage-export");
  const parent = env.id("trace-export-first-context");
  const successor = env.id("trace-export-after-compaction");
  client.distill(
    [
      {
        node_id: "f1",
        node_type: "EXPLORATORY_CHATTER",
        content: "The nightly export stops at about 30 s; maybe the worker pool is starved.",
      },
      {
        node_id: "f2",
        node_type: "FALSIFIED_PATH",
        content: "Raise the export worker pool to 64",
        verification_receipt: "pool=64: export still cut at 30.0 s (run 118, exit 1)",
      },
      {
        node_id: "f3",
        node_type: "VERIFIED_CONCLUSION",
        content: "The export is cut by the proxy's 30 s idle timeout",
        verification_receipt: "curl -v: connection reset at 30.0 s; proxy.conf idle_timeout=30s",
      },
    ],
    { traceId: parent, chainId, keepNodes: true },
  );
  client.distill(
    [
      {
        node_id: "s1",
        node_type: "EXPLORATORY_CHATTER",
        content: "Picking up the export job from the summary.",
      },
      {
        // The wall the first context already hit, walked into again.
        node_id: "s2",
        node_type: "FALSIFIED_PATH",
        content: "Raise the export worker pool to 64",
        verification_receipt: "pool=64: cut at 30.0 s again (run 131, exit 1)",
      },
      {
        // The opposite of what the first context proved.
        node_id: "s3",
        node_type: "FALSIFIED_PATH",
        content: "The export is cut by the proxy's 30 s idle timeout",
        verification_receipt: "staging proxy idle_timeout=120s: the staging export still stops",
      },
      {
        node_id: "s4",
        node_type: "VERIFIED_CONCLUSION",
        content: "Stream the export in pages of 500 rows",
        verification_receipt: "export of 40,000 rows: HTTP 200 in 12 s, no reset",
      },
    ],
    { traceId: successor, parentTraceId: parent, chainId, keepNodes: true },
  );
  return { parent, successor };
}
