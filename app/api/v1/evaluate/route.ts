import { evaluateBatchBytes } from "@/lib/guard/evaluate-batch";
import { evaluatePass } from "@/lib/guard/guard";
import { parseJsonBody, readJsonBody } from "@/lib/http/body";
import { parseBody, parseItems } from "@/lib/http/batch";
import { json, jsonBytes, methodNotAllowed, route } from "@/app/_access/api-route";
import { evaluateItemSchema, MAX_EVALUATE_BATCH, quickEvaluateItem } from "@/lib/schemas/guard";

// A batch answer is up to ~1.7 MB, a quarter of it SHA-256 hex that does not compress: gzip at
// Next's level costs the server about five times what evaluating the batch does, more than
// it saves an agent next to the server. Nothing here is worth caching either.
const ANSWER_HEADERS = { "cache-control": "no-store, no-transform" };

export const POST = route("/api/v1/evaluate", async (request) => {
  const raw = await readJsonBody(request);
  // A plainly valid batch is evaluated straight from its bytes; anything else (one item, a
  // batch with a mistake, non-ASCII text) is parsed and judged by the schema, which words
  // the errors.
  const answer = typeof raw === "string" ? null : evaluateBatchBytes(raw);
  if (answer) return jsonBytes(answer, 200, ANSWER_HEADERS);
  const body = parseJsonBody(raw);
  if (Array.isArray(body)) {
    const items = parseItems(body, evaluateItemSchema, null, MAX_EVALUATE_BATCH, quickEvaluateItem);
    return json(
      items.map((item) => evaluatePass(item.pass, item.policy)),
      200,
      ANSWER_HEADERS,
    );
  }
  const item = parseBody(body, evaluateItemSchema);
  return json(evaluatePass(item.pass, item.policy), 200, ANSWER_HEADERS);
});

const notAllowed = methodNotAllowed("/api/v1/evaluate");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
