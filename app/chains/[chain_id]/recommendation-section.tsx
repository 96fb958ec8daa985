import { getCachedRecommendation, getChainCatches, getChainFailure } from "@/db/queries/recommendation";
import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { ChainSummaryWire } from "@/lib/schemas/chains";
import { RecommendedCatch } from "@/components/chains/recommended-catch";

/**
 * What the failure at `failure` was, in the words the header can stand beside: a roll-back the
 * agent made, or content that broke. A chain whose claims reached no floor there failed only
 * as the server checked its content (the header says its claims reached no floor).
 */
function failureCause(failure: number, summary: ChainSummaryWire, boundaries: readonly BoundaryWire[]): string {
  const boundary = boundaries.find(
    (b) => b.pass_number === failure && (b.strategy === "restore" || b.strategy === "accept_loss"),
  );
  const answer = boundary
    ? boundary.strategy === "restore"
      ? "its agent restored an earlier pass there"
      : "its agent accepted the loss there"
    : null;
  const floor = summary.collapse_point;
  if (floor?.pass_number === failure && floor.verdict === "FLOOR_BREACH_DETECTED") {
    return `its content was unparseable or failed its schema there${answer ? `, and ${answer}` : ""}`;
  }
  if (answer) return answer;
  return floor === null
    ? "the server's check of its content found it unparseable or failing its schema there, where the agent's claims reached no floor"
    : "the server's check of its content found it unparseable or failing its schema there";
}

/** For a chain that failed: which of its class's recommended floors would have caught it, and where. */
export async function RecommendationSection({
  summary,
  boundaries,
}: {
  summary: ChainSummaryWire;
  boundaries: BoundaryWire[];
}) {
  const { chain_id: chainId, content_class: contentClass } = summary;
  const failure = await getChainFailure(chainId, contentClass);
  if (failure === null) return null;
  const recommendation = await getCachedRecommendation(contentClass);
  const options = recommendation.ok ? recommendation.recommendation.options : [];
  return (
    <RecommendedCatch
      contentClass={contentClass}
      failure={failure}
      cause={failureCause(failure, summary, boundaries)}
      options={await getChainCatches(chainId, contentClass, failure, options)}
      notEnough={recommendation.ok ? undefined : { chains: recommendation.chains, minimum: recommendation.minimum }}
    />
  );
}
