// The class behind the floor recommendation: three dozen search-results chains, each a search
// API's answer crushed pass after pass by one of several agents through the TypeScript SDK.
// Careful agents protect the fields the consumer needs (`results.url`, `results.title`) and
// stay healthy; careless ones crush until the title goes, which breaks the schema: some go on
// regardless (failures), some are guarded and restore, or halt where the size floor comes
// first (saves, not failures). What the floor in force (density 0.3) misses
// and what stricter floors would catch comes out of the measured densities, not out of numbers
// chosen for it (docs/recommendation.md works the outcome through).
import { crushJson } from "../lib/compressors/json-crusher";
import type { Floorline, Policy } from "../sdk/typescript/src/index";

/**
 * Picks the generator's sequence. Most sequences give the same picture (the floor in force
 * misses every failure; a size floor catches most, at a cost); this one also gives three
 * different options, so that the recommendation has something to choose between, with the
 * chains the guard saved counted as saves (docs/recommendation.md).
 */
const SEED = 20;

export const SEARCH_CLASS = "search-results";

export const SEARCH_FLOOR: Policy & { description: string } = {
  min_size_bytes: 512,
  min_semantic_density: 0.3,
  max_pass_number: 10,
  required_fields: ["results.url", "results.title"],
  format: "json",
  description: "Search API results compressed between agent steps. See the recommended floors.",
};

const TOPICS = [
  "postgres replica lag",
  "dishwasher pump replacement",
  "kubernetes pod eviction",
  "invoice vat rules portugal",
  "next.js cache headers",
  "rust async cancellation",
  "parquet row group size",
  "oauth pkce flow",
  "zstd dictionary training",
  "grafana alert routing",
  "lisbon tram 28 timetable",
  "sqlite wal checkpoint",
];
const SITES = ["docs.example.org", "blog.example.com", "forum.example.net", "wiki.example.io", "news.example.pt"];
const AUTHORS = ["Priya Raman", "Tomás Ferreira", "Mei Lin", "Jonas Berg", "Ana Ñúñez", "Søren Ødegård"];

/** A small deterministic generator, so the demo is the same on every start. */
function random(seed: number): () => number {
  let s = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return () => {
    // xorshift32: neighbouring seeds give unrelated sequences.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** One search API answer: `count` results, with the optional fields this engine returns. */
export function searchResponse(index: number): string {
  const next = random(SEED * 7_919 + index);
  const topic = TOPICS[index % TOPICS.length] as string;
  const count = 14 + Math.floor(next() * 16);
  const extras = { author: next() < 0.6, summary: next() < 0.5, tags: next() < 0.5 };
  const results = Array.from({ length: count }, (_, r) => {
    const site = SITES[Math.floor(next() * SITES.length)] as string;
    const day = 1 + Math.floor(next() * 28);
    const result: Record<string, unknown> = {
      rank: r + 1,
      url: `https://${site}/${topic.replaceAll(" ", "-")}/${1000 + index * 40 + r}`,
      title: `${["Guide", "Notes", "Answer", "Changelog", "Thread"][r % 5]} ${r + 1}`,
      snippet: `Updated 2026-10-${String(day).padStart(2, "0")}: ${topic} explained with ${2 + (r % 7)} examples, tested on version ${1 + (r % 4)}.${r % 10}; ${30 + r * 3} comments, ${r % 3 === 0 ? "accepted answer" : "no accepted answer"}.`,
      site,
      published: `2026-${String(1 + (r % 9)).padStart(2, "0")}-${String(day).padStart(2, "0")}`,
      score: Math.round(next() * 1000) / 1000,
    };
    if (extras.author) result.author = AUTHORS[(index + r) % AUTHORS.length];
    if (extras.summary)
      result.summary = `${AUTHORS[r % AUTHORS.length]} compares ${2 + (r % 5)} approaches to ${topic}; benchmark ${r + 11} ran ${(r % 4) + 1}.${r % 9}x faster on ${site}.`;
    if (extras.tags) result.tags = [topic.split(" ")[0], site.split(".")[0], `y${2020 + (r % 6)}`];
    return result;
  });
  return JSON.stringify({ query: topic, engine: "example-search", took_ms: 40 + index, total: count * 37, results });
}

interface Agent {
  kind: "careful" | "careless";
  passes: number;
  keepItems: number;
  /** Fields the agent's crusher never drops. */
  protect: string[];
  /** What a guarded careless agent does when the schema breaks; unguarded agents never look. */
  strategy?: "restore" | "accept_loss";
}

/** Which agent compressed chain `index`, with what settings. */
function agentFor(index: number): Agent {
  const next = random(SEED * 104_729 + 1_000 + index);
  if (index % 5 === 1 || index % 5 === 3) {
    const strategy = index % 10 === 3 ? "restore" : index === 21 ? "accept_loss" : undefined;
    // Two agents keep every long text for the model and give up the short fields first, the
    // title second: they break the schema at pass 2, where no floor can stop them.
    if (index === 1 || index === 13)
      return {
        kind: "careless",
        passes: 6,
        keepItems: 12,
        protect: ["query", "results", "url", "snippet", "summary", "tags", "site", "author", "score", "rank"],
      };
    // The others crush hard (long lists halved down to a handful) until the title goes.
    return {
      kind: "careless",
      passes: 10,
      keepItems: 4 + Math.floor(next() * 5),
      protect: ["query", "results", "url"],
      strategy,
    };
  }
  // Careful agents keep what the consumer needs and stop after a few gentle passes.
  return {
    kind: "careful",
    passes: 4 + Math.floor(next() * 4),
    keepItems: 5 + Math.floor(next() * 12),
    protect: ["query", "results", "url", "title", "_ccr"],
  };
}

export const SEARCH_CHAINS = 36;

/**
 * Runs every chain of the class on `fl`; `startChain` dates each chain (the seed backdates them
 * two to three weeks, outside the overview's default week).
 */
export async function runSearchAgents(fl: Floorline, startChain: (index: number) => void): Promise<void> {
  for (let index = 0; index < SEARCH_CHAINS; index++) {
    startChain(index);
    const agent = agentFor(index);
    const id = `sr-${agent.kind === "careful" ? "careful" : "careless"}-${String(index + 1).padStart(2, "0")}`;
    const chain = fl.chain(id, { contentClass: SEARCH_CLASS });
    await chain.ready();
    const crush = (s: string) => crushJson(s, { protect: agent.protect, keepItems: agent.keepItems });
    if (agent.kind === "careless" && agent.strategy) {
      const strategy = agent.strategy;
      await chain.compressUntilFloor(searchResponse(index), crush, {
        maxPasses: agent.passes,
        onBreach: ({ pass }) => (pass.receipt.schema_valid ? "halt" : strategy),
      });
      continue;
    }
    // The other agents crush a fixed number of times and never look at the verdict.
    let text = searchResponse(index);
    for (let n = 1; n <= agent.passes; n++) {
      const next = crush(text);
      if (next === text) break;
      chain.recordPass(text, next);
      text = next;
    }
  }
}
