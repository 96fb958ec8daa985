import { readAndEvaluate } from "@/lib/guard/batch";
import { evaluatePass } from "@/lib/guard/guard";
import { parseJsonBody } from "@/lib/http/body";
import { parseBody, parseItems } from "@/lib/http/batch";
import { recordEvaluate } from "@/lib/observability/metrics";
import { BATCH_ANSWER_HEADERS, json, jsonBytes, serve } from "@/app/_access/api-route";
import { INGEST_ROUTES } from "@/lib/routes/ingest";
import { evaluateItemSchema, MAX_EVALUATE_BATCH } from "@/lib/schemas/guard";

// Answers go uncompressed (BATCH_ANSWER_HEADERS): compressing a large batch's answer costs the
// server more than evaluating the batch does.

export const { GET, POST, PUT, PATCH, DELETE } = serve(INGEST_ROUTES.evaluate, {
  POST: async (request) => {
    // A plainly valid batch is answered by the fast path; anything else (one item, a batch with
    // a mistake, non-ASCII text) is parsed and judged by the schema, which words the errors.
    const read = await readAndEvaluate(request);
    if (read.answer) {
      recordEvaluate(read.answer.split ? "split" : "whole");
      return jsonBytes(read.answer.bytes, 200, BATCH_ANSWER_HEADERS);
    }
    const body = parseJsonBody(read.body);
    if (Array.isArray(body)) {
      const items = parseItems(body, evaluateItemSchema, null, MAX_EVALUATE_BATCH);
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
  },
});
