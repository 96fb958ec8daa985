import { getCachedRecommendation, getChainCatches, getChainFailure } from "@/db/queries/recommendation";
import { RecommendedCatch } from "@/components/chains/recommended-catch";

/** For a chain that failed: which of its class's recommended floors would have caught it, and where. */
export async function RecommendationSection({ chainId, contentClass }: { chainId: string; contentClass: string }) {
  const failure = await getChainFailure(chainId, contentClass);
  if (failure === null) return null;
  const recommendation = await getCachedRecommendation(contentClass);
  const options = recommendation.ok ? recommendation.recommendation.options : [];
  return (
    <RecommendedCatch
      contentClass={contentClass}
      failure={failure}
      options={await getChainCatches(chainId, contentClass, failure, options)}
      notEnough={recommendation.ok ? undefined : { chains: recommendation.chains, minimum: recommendation.minimum }}
    />
  );
}
