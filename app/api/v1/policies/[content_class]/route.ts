import { getPolicy, listPolicyVersions, updatePolicy } from "@/db/queries/policies";
import { actorName } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { POLICY_ROUTES } from "@/lib/routes/policies";
import { contentClassSchema } from "@/lib/schemas/common";
import { policyBodySchema } from "@/lib/schemas/policies";

async function contentClassOf(params: Promise<{ content_class: string }>): Promise<string> {
  const { content_class } = await params;
  const parsed = contentClassSchema.safeParse(content_class);
  if (!parsed.success) {
    throw new ApiError("validation_failed", "The content class in the URL is not valid.", {
      issues: [{ path: "content_class", message: parsed.error.issues[0]?.message ?? "not a valid content class" }],
    });
  }
  return parsed.data;
}

export const { GET, POST, PUT, PATCH, DELETE } = serve(POLICY_ROUTES.detail, {
  GET: async (_request, { params }) => {
    const contentClass = await contentClassOf(params);
    const [policy, versions] = await Promise.all([getPolicy(contentClass), listPolicyVersions(contentClass)]);
    return json({ ...policy, versions });
  },
  PUT: async (request, { params }, principal) => {
    const contentClass = await contentClassOf(params);
    const body = parseBody(await readJson(request), policyBodySchema);
    const { policy, created } = await updatePolicy(contentClass, body, actorName(principal));
    return json(policy, created ? 201 : 200);
  },
});
