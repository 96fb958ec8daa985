import { ArrivingBatch } from "@/lib/guard/evaluate-halves";
import { evaluateOnThread } from "@/lib/guard/evaluate-thread";
import { evaluatePass } from "@/lib/guard/guard";
import { parseJsonBody, readJsonBody } from "@/lib/http/body";
import { parseBody, parseItems } from "@/lib/http/batch";
import { recordEvaluate } from "@/lib/observability/metrics";
import { BATCH_ANSWER_HEADERS, json, jsonBytes, methodNotAllowed, route } from "@/app/_access/api-route";
import { evaluateItemSchema, MAX_EVALUATE_BATCH, quickEvaluateItem } from "@/lib/schemas/guard";

// Answers go uncompressed (BATCH_ANSWER_HEADERS): gzip of a 10,000-item answer (~1.7 MB) would
// cost the server about five times what evaluating the batch does.

export const POST = route("/api/v1/evaluate", async (request) => {
  // A plainly valid batch is evaluated straight from its bytes, a large one in two parts at
  // once (the first on a worker thread from when it has arrived); anything else (one item, a
  // batch with a mistake, non-ASCII text) is parsed and judged by the schema, which words the
  // errors.
  const batch = new ArrivingBatch(Number(request.headers.get("content-length")), evaluateOnThread);
  const raw = await readJsonBody(request, undefined, (chunk) => batch.take(chunk));
  const answer = typeof raw === "string" ? null : await batch.finish(raw);
  if (answer) {
    recordEvaluate(answer.split ? "split" : "whole");
    return jsonBytes(answer.bytes, 200, BATCH_ANSWER_HEADERS);
  }
  const body = parseJsonBody(raw);
  if (Array.isArray(body)) {
    const items = parseItems(body, evaluateItemSchema, null, MAX_EVALUATE_BATCH, quickEvaluateItem);
    recordEvaluate("parsed");
    return json(
      items.map((item) => evaluatePass(item.pass, item.policy)),
      200,
      BATCH_ANSWER_HEADERS,
    );
  }
  const item = parseBody(body, evaluateItemSchema);
  recordEvaluate("parsed");
  return json(evaluatePass(item.pass, item.policy), 200, BATCH_ANSWER_HEADERS);
});

const notAllowed = methodNotAllowed("/api/v1/evaluate");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
