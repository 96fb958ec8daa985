import { getCachedRecommendation, getRecordedChainToFailure } from "@/db/queries/recommendation";
import { catchesOf } from "@/lib/recommend";
import { RecommendedCatch } from "@/components/chains/recommended-catch";

/** For a chain that failed: which of its class's recommended floors would have caught it, and where. */
export async function RecommendationSection({ chainId, contentClass }: { chainId: string; contentClass: string }) {
  const chain = await getRecordedChainToFailure(chainId, contentClass);
  if (!chain) return null;
  const recommendation = await getCachedRecommendation(contentClass);
  const options = recommendation.ok ? recommendation.recommendation.options : [];
  const catches = catchesOf(chain, options);
  if (!catches) return null;
  return (
    <RecommendedCatch
      contentClass={contentClass}
      failure={catches.failure}
      options={catches.options}
      notEnough={recommendation.ok ? undefined : { chains: recommendation.chains, minimum: recommendation.minimum }}
    />
  );
}
