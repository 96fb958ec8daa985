import { getPolicy, listPolicyVersions, updatePolicy } from "@/db/queries/policies";
import { actorName } from "@/lib/auth/access";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { contentClassSchema } from "@/lib/schemas/common";
import { policyBodySchema } from "@/lib/schemas/policies";

type Context = { params: Promise<{ content_class: string }> };

async function contentClassOf(params: Context["params"]): Promise<string> {
  const { content_class } = await params;
  const parsed = contentClassSchema.safeParse(content_class);
  if (!parsed.success) {
    throw new ApiError("validation_failed", "The content class in the URL is not valid.", {
      issues: [{ path: "content_class", message: parsed.error.issues[0]?.message ?? "not a valid content class" }],
    });
  }
  return parsed.data;
}

export const GET = route<Context>("/api/v1/policies/{content_class}", async (_request, { params }) => {
  const contentClass = await contentClassOf(params);
  const [policy, versions] = await Promise.all([getPolicy(contentClass), listPolicyVersions(contentClass)]);
  return json({ ...policy, versions });
});

export const PUT = route<Context>("/api/v1/policies/{content_class}", async (request, { params }, principal) => {
  const contentClass = await contentClassOf(params);
  const body = parseBody(await readJson(request), policyBodySchema);
  const { policy, created } = await updatePolicy(contentClass, body, actorName(principal));
  return json(policy, created ? 201 : 200);
});

const notAllowed = methodNotAllowed("/api/v1/policies/{content_class}");
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE };
