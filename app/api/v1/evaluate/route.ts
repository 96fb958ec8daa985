import { evaluatePass } from "@/lib/guard";
import { readJson } from "@/lib/http/body";
import { parseItems } from "@/lib/http/batch";
import { json, route } from "@/lib/http/route";
import { evaluateItemSchema, MAX_EVALUATE_BATCH } from "@/lib/schemas/guard";

export const POST = route(async (request) => {
  const body = await readJson(request);
  const batch = Array.isArray(body);
  const items = parseItems(batch ? body : [body], evaluateItemSchema, null, MAX_EVALUATE_BATCH);
  const manifests = items.map((item) => evaluatePass(item.pass, item.policy));
  return json(batch ? manifests : manifests[0]);
});
