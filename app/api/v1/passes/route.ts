import { ingestPasses } from "@/db/ingest/passes";
import { mayReadOriginals } from "@/lib/auth/access";
import { readJson } from "@/lib/http/body";
import { parseOneOrBatch } from "@/lib/http/batch";
import { BATCH_ANSWER_HEADERS, json, methodNotAllowed, route } from "@/app/_access/api-route";
import { MAX_PASS_BATCH, oversizedContentPaths, passReceiptSchema, quickPassReceipt } from "@/lib/schemas/passes";
import { MAX_CONTENT_BYTES } from "@/lib/content-checks/formats";
import { ApiError } from "@/lib/errors";

export const POST = route("/api/v1/passes", async (request, _context, principal) => {
  const body = await readJson(request);
  const oversized = oversizedContentPaths(body);
  if (oversized.length > 0) {
    throw new ApiError(
      "payload_too_large",
      `Content must be at most ${MAX_CONTENT_BYTES / (1024 * 1024)} MiB as UTF-8 (${oversized[0]}); nothing was written.`,
      { issues: oversized.map((path) => ({ path, message: "is over the content limit" })) },
    );
  }
  const { items, batch } = parseOneOrBatch(body, passReceiptSchema, "receipts", MAX_PASS_BATCH, quickPassReceipt);
  const { results, created } = await ingestPasses(items, { readsOriginals: mayReadOriginals(principal) });
  return json(batch ? { results } : results[0], created > 0 ? 201 : 200, BATCH_ANSWER_HEADERS);
});

const notAllowed = methodNotAllowed("/api/v1/passes");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
