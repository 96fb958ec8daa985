import { evaluateBatchBytes } from "@/lib/guard/evaluate-batch";
import { evaluatePass } from "@/lib/guard/guard";
import { parseJsonBody, readJsonBody } from "@/lib/http/body";
import { parseBody, parseItems } from "@/lib/http/batch";
import { BATCH_ANSWER_HEADERS, json, jsonBytes, methodNotAllowed, route } from "@/app/_access/api-route";
import { evaluateItemSchema, MAX_EVALUATE_BATCH, quickEvaluateItem } from "@/lib/schemas/guard";

// Answers go uncompressed (BATCH_ANSWER_HEADERS): gzip of a 10,000-item answer (~1.7 MB) would
// cost the server about five times what evaluating the batch does.

export const POST = route("/api/v1/evaluate", async (request) => {
  const raw = await readJsonBody(request);
  // A plainly valid batch is evaluated straight from its bytes; anything else (one item, a
  // batch with a mistake, non-ASCII text) is parsed and judged by the schema, which words
  // the errors.
  const answer = typeof raw === "string" ? null : evaluateBatchBytes(raw);
  if (answer) return jsonBytes(answer, 200, BATCH_ANSWER_HEADERS);
  const body = parseJsonBody(raw);
  if (Array.isArray(body)) {
    const items = parseItems(body, evaluateItemSchema, null, MAX_EVALUATE_BATCH, quickEvaluateItem);
    return json(
      items.map((item) => evaluatePass(item.pass, item.policy)),
      200,
      BATCH_ANSWER_HEADERS,
    );
  }
  const item = parseBody(body, evaluateItemSchema);
  return json(evaluatePass(item.pass, item.policy), 200, BATCH_ANSWER_HEADERS);
});

const notAllowed = methodNotAllowed("/api/v1/evaluate");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
