import { getPolicy } from "@/db/queries/policies";
import { getClassChains } from "@/db/queries/recommendation";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { POLICY_ROUTES } from "@/lib/routes/policies";
import { recommendationBody, recommendFloors } from "@/lib/recommend";
import { contentClassSchema } from "@/lib/schemas/common";

export const { GET, POST, PUT, PATCH, DELETE } = serve(POLICY_ROUTES.recommendation, {
  GET: async (_request, { params }) => {
    const parsed = contentClassSchema.safeParse((await params).content_class);
    if (!parsed.success) {
      throw new ApiError("validation_failed", "The content class in the URL is not valid.", {
        issues: [{ path: "content_class", message: parsed.error.issues[0]?.message ?? "not a valid content class" }],
      });
    }
    const [policy, chains] = await Promise.all([getPolicy(parsed.data), getClassChains(parsed.data)]);
    const result = recommendFloors(chains, policy);
    if (!result.ok) {
      throw new ApiError(
        "not_enough_data",
        `Content class '${parsed.data}' has ${result.chains} recorded chain(s); a recommendation needs at least ${result.minimum}.`,
        { extra: { chains: result.chains, minimum: result.minimum } },
      );
    }
    return json(recommendationBody(policy, result.recommendation));
  },
});
