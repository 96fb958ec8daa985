// Demo originals that teach the CCR store: a tool output compressed hard and retrieved
// back, the cached orders a restore boundary rolls back to, an expired and an evicted
// entry that still answer 410, and a few misses so every counter has something to show.
import { count, isNull } from "drizzle-orm";
import { getDb } from "./index";
import { originals } from "./schema";
import { onlyRow } from "./sql";
import { enforceStoreLimits } from "@/db/queries/originals/eviction";
import { getOriginalStats } from "@/db/queries/originals/stats";
import { getOriginalsConfig } from "@/db/queries/originals/shared";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { storeOriginal } from "@/db/queries/originals/store";
import { sha256Hex } from "@/lib/guard/hash";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

function issues(count: number): string {
  const labels = ["bug", "enhancement", "docs", "performance", "security"];
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      number: 4100 + i,
      title: `Compression marker lost after retry #${i}`,
      state: i % 4 === 0 ? "closed" : "open",
      labels: [labels[i % labels.length]],
      comments: (i * 7919) % 61,
      author: `dev-${i % 23}`,
      body: `Steps to reproduce ${i}: run the agent with --ccr, retrieve hash, observe <b>markup</b> kept as text.`,
    })),
    null,
    2,
  );
}

function buildLog(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `2026-01-01T10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z ${i % 97 === 0 ? "ERROR" : "INFO"} worker-${i % 8} handled request ${i} in ${(i * 13) % 400} ms`,
  ).join("\n");
}

/** The content a demo restore boundary rolls back to (demo/scenarios.ts `RestoredContent`). */
interface RestoredContent {
  chain_id: string;
  pass_id: string;
  original: string;
  compressed: string;
}

/**
 * Seeds demo originals once; returns how many were stored (0 when the store is not empty).
 * `restored`: what the demo chains' restore boundaries roll back to, each kept as the original
 * of the restored pass's output, so its hash is the one that pass's receipt names.
 */
export async function seedDemoOriginals(restored: readonly RestoredContent[] = []): Promise<number> {
  const db = await getDb();
  // The demo's own entries have no pass; a demo chain's client may have cached its passes' inputs already.
  const { n } = onlyRow(await db.select({ n: count() }).from(originals).where(isNull(originals.passId)));
  if (n > 0) return 0;
  const config = getOriginalsConfig();

  // Stored long ago and never retrieved: the store evicts it below.
  const stale = await storeOriginal(
    {
      original: issues(300),
      compressed: issues(5),
      tool_name: "github.search_issues",
      original_items: 300,
      compressed_items: 5,
    },
    { now: minutesAgo(240), config },
  );
  // A one-hour TTL set three hours ago: gone by now, as a tombstone.
  const shortLived = await storeOriginal(
    {
      original: buildLog(400),
      compressed: "400 log lines; 5 errors. Tail kept.",
      tool_name: "fs.read",
      content_type: "text/plain",
      ttl_seconds: 3600,
    },
    { now: minutesAgo(180), config },
  );

  const issuesFull = issues(1000);
  const issuesSummary = JSON.stringify(
    JSON.parse(issuesFull)
      .slice(0, 20)
      .map((i: { number: number; title: string; state: string }) => ({
        number: i.number,
        title: i.title,
        state: i.state,
      })),
  );
  const search = await storeOriginal(
    {
      original: issuesFull,
      compressed: issuesSummary,
      tool_name: "github.search_issues",
      original_items: 1000,
      compressed_items: 20,
      original_tokens: 61_200,
      compressed_tokens: 980,
    },
    { now: minutesAgo(95), config },
  );
  // The orders the schema-truncation chain's restore rolls back to: pass 4's output, which
  // pass 5 compressed past the schema.
  for (const r of restored) {
    await storeOriginal(
      {
        original: r.original,
        compressed: r.compressed,
        content_type: "application/json",
        tool_name: "orders_api.list",
        chain_id: r.chain_id,
        pass_id: r.pass_id,
      },
      { now: minutesAgo(130), config },
    );
  }
  await storeOriginal(
    {
      original: buildLog(20_000),
      compressed: "20000 log lines; 207 ERROR lines from worker-0..7. Kept: first and last 50.",
      tool_name: "fs.read",
      content_type: "text/plain",
    },
    { now: minutesAgo(30), config },
  );

  // The model needed comment counts the summary dropped: two retrievals an hour apart.
  await retrieveOriginal(search.result.hash, { now: minutesAgo(80) });
  await retrieveOriginal(search.result.hash.slice(0, 24), { now: minutesAgo(20) });

  const { store } = await getOriginalStats(24, { config });
  await enforceStoreLimits({ now: minutesAgo(60), config: { ...config, maxBytes: store.live_bytes - 1 } });

  // Agents asking for what is gone, or for what never was: each miss counted by reason.
  for (const key of [stale.result.hash, shortLived.result.hash, sha256Hex("an agent's typo").slice(0, 24)]) {
    await retrieveOriginal(key, { now: minutesAgo(10) }).catch(() => undefined);
  }
  return 4 + restored.length;
}
