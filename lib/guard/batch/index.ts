// The evaluate endpoint's fast path, behind this one entry: a plainly valid batch is answered
// straight from the request's bytes (evaluate.ts), a large one in two parts at once, the first
// on a worker thread from when it has arrived (halves.ts, thread.ts). The answer is exactly
// what the general path (parse, validate, evaluatePass, JSON.stringify) gives for the same
// body, byte for byte; anything else is left to the general path, which judges it and words
// the errors. The modules beside this one are private to it (biome.json says so).
import "server-only";
import { readJsonBody } from "../../http/body";
import { ArrivingBatch, type HalvesAnswer } from "./halves";
import { evaluateOnThread } from "./thread";

type FastAnswer = HalvesAnswer;

/**
 * Reads an evaluate request's body (readJsonBody: its checks, limits and errors). A plainly
 * valid batch comes back answered; any other body comes back as readJsonBody read it, for the
 * general path to parse.
 */
export async function readAndEvaluate(
  request: Request,
): Promise<{ answer: FastAnswer; body?: undefined } | { answer: null; body: Buffer | string }> {
  const batch = new ArrivingBatch(Number(request.headers.get("content-length")), evaluateOnThread);
  const body = await readJsonBody(request, undefined, (chunk) => batch.take(chunk));
  const answer = typeof body === "string" ? null : await batch.finish(body);
  return answer ? { answer } : { answer: null, body };
}
