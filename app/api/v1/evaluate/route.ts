import { evaluatePass } from "@/lib/guard/guard";
import { readJson } from "@/lib/http/body";
import { parseBody, parseItems } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { evaluateItemSchema, MAX_EVALUATE_BATCH, quickEvaluateItem } from "@/lib/schemas/guard";

export const POST = route("/api/v1/evaluate", async (request) => {
  const body = await readJson(request);
  if (Array.isArray(body)) {
    const items = parseItems(body, evaluateItemSchema, null, MAX_EVALUATE_BATCH, quickEvaluateItem);
    return json(items.map((item) => evaluatePass(item.pass, item.policy)));
  }
  const item = parseBody(body, evaluateItemSchema);
  return json(evaluatePass(item.pass, item.policy));
});

const notAllowed = methodNotAllowed("/api/v1/evaluate");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
