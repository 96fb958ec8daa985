// Demo data for the floor recommendation: one class, "search-results", with three dozen
// chains recorded two to three weeks ago (outside the overview's default week, so the
// other demo chains keep their figures). Twelve fail (schema-invalid, or a restore /
// accept-loss boundary) after their density fell under a value of their own; two fail at
// pass 2, where no floor can catch them; twenty-two stay healthy, a few of them dipping
// as low as the failing ones. The floor in force (density 0.3) catches none, and strict,
// balanced and lenient recommend three different density floors.
import { ingestBoundaries } from "./ingest/boundaries";
import { ingestPasses } from "./ingest/passes";
import { updatePolicy } from "./queries/policies";
import { sha256Hex } from "@/lib/guard/hash";
import type { BoundaryReceipt } from "@/lib/schemas/boundaries";
import type { PassReceipt } from "@/lib/schemas/passes";

export const DEMO_RECOMMEND_CLASS = "search-results";

interface DemoChain {
  id: string;
  /** Density of the pass before the failure (failing) or before the last pass (healthy). */
  low: number;
  passes: number;
  /** Pass at which content broke (schema-invalid), or the pass of a boundary. */
  failAt?: number;
  boundary?: "restore" | "accept_loss";
}

// Lowest density before the failure, per failing chain, and the lowest a healthy chain
// reaches before its last pass. Working the options out by hand (a density floor D stops a
// chain at the first pass under D):
//   lenient  D in (0.43, 0.45]: catches the five under 0.44, halts nothing;
//   balanced D in (0.49, 0.50]: catches eight, halts the chain at 0.45 (8 - 1 is the best);
//   strict   D in (0.58, 0.59]: catches all twelve that can be caught, halts six.
const FAILING: DemoChain[] = [
  { id: "sr-fail-01", low: 0.34, passes: 6, failAt: 5 },
  { id: "sr-fail-02", low: 0.37, passes: 7, failAt: 6 },
  { id: "sr-fail-03", low: 0.39, passes: 5, failAt: 5 },
  { id: "sr-fail-04", low: 0.41, passes: 6, failAt: 4, boundary: "restore" },
  { id: "sr-fail-05", low: 0.43, passes: 7, failAt: 6 },
  { id: "sr-fail-06", low: 0.46, passes: 6, failAt: 5 },
  { id: "sr-fail-07", low: 0.49, passes: 5, failAt: 4 },
  { id: "sr-fail-08", low: 0.49, passes: 7, failAt: 7, boundary: "accept_loss" },
  { id: "sr-fail-09", low: 0.52, passes: 6, failAt: 5 },
  { id: "sr-fail-10", low: 0.56, passes: 6, failAt: 6 },
  { id: "sr-fail-11", low: 0.58, passes: 5, failAt: 5 },
  { id: "sr-fail-12", low: 0.58, passes: 6, failAt: 4 },
  { id: "sr-fail-early-1", low: 0.8, passes: 4, failAt: 2 },
  { id: "sr-fail-early-2", low: 0.8, passes: 5, failAt: 2 },
];

const HEALTHY_LOWS = [0.45, 0.5, 0.51, 0.53, 0.57, 0.57, 0.59, 0.62, 0.64, 0.66, 0.67, 0.69, 0.7, 0.72];
const HEALTHY: DemoChain[] = [
  ...HEALTHY_LOWS.map((low, i) => ({ id: `sr-ok-${String(i + 1).padStart(2, "0")}`, low, passes: 6 + (i % 3) })),
  ...Array.from({ length: 8 }, (_, i) => ({ id: `sr-ok-${i + 15}`, low: 0.74 + i * 0.02, passes: 5 + (i % 3) })),
];

/** Density falls evenly from 0.9 to `low` at the pass before the failure (or the last), then a little more. */
function receiptsOf(chain: DemoChain, index: number): PassReceipt[] {
  const until = (chain.failAt ?? chain.passes) - 1;
  const start = Date.now() - (20 * 86_400_000 - index * 9 * 3_600_000);
  let size = 48_000 + ((index * 7_919) % 16_000);
  let previous = sha256Hex(`${chain.id}:source`);
  return Array.from({ length: chain.passes }, (_, i) => {
    const n = i + 1;
    const density =
      n <= until ? 0.9 - ((0.9 - chain.low) * (n - 1)) / Math.max(until - 1, 1) : chain.low - 0.03 * (n - until);
    size = Math.round(size * (0.58 + ((index + n) % 5) * 0.03));
    const current = sha256Hex(`${chain.id}:pass:${n}`);
    const receipt: PassReceipt = {
      chain_id: chain.id,
      pass_id: `${chain.id}.p${n}`,
      pass_number: n,
      input_content_hash: previous,
      current_content_hash: current,
      current_size_bytes: size,
      is_parseable: true,
      schema_valid: !(chain.failAt !== undefined && !chain.boundary && n >= chain.failAt),
      semantic_density_score: Math.round(Math.max(0.05, density) * 1000) / 1000,
      content_class: DEMO_RECOMMEND_CLASS,
      created_at: new Date(start + i * 5 * 60_000).toISOString(),
      verdict: null,
      metadata: { agent: "demo-search-agent", step: n },
    };
    previous = current;
    return receipt;
  });
}

export function demoRecommendReceipts(): { passes: PassReceipt[]; boundaries: BoundaryReceipt[] } {
  const chains = [...FAILING, ...HEALTHY];
  const passes = chains.flatMap((c, i) => receiptsOf(c, i));
  const boundaries: BoundaryReceipt[] = FAILING.flatMap((c) => {
    if (!c.boundary || c.failAt === undefined) return [];
    const at = c.failAt;
    return [
      c.boundary === "restore"
        ? {
            chain_id: c.id,
            pass_number: at,
            strategy: "restore" as const,
            reason: `Pass ${at} lost the result URLs; restored pass ${at - 1} from the cache.`,
            restore_pass_id: `${c.id}.p${at - 1}`,
          }
        : {
            chain_id: c.id,
            pass_number: at,
            strategy: "accept_loss" as const,
            reason: "Snippets no longer matter for this step; the operator accepted the loss.",
            relaxed_policy: { min_size_bytes: 256, min_semantic_density: 0.2, max_pass_number: 10 },
          },
    ];
  });
  return { passes, boundaries };
}

export async function seedDemoRecommendation(): Promise<void> {
  await updatePolicy(DEMO_RECOMMEND_CLASS, {
    min_size_bytes: 512,
    min_semantic_density: 0.3,
    max_pass_number: 10,
    required_fields: ["results.url", "results.title"],
    description: "Search API results compressed between agent steps. See the recommended floors.",
  });
  const { passes, boundaries } = demoRecommendReceipts();
  await ingestPasses(passes);
  await ingestBoundaries(boundaries);
}
