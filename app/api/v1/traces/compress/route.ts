import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { compressRequestSchema, missingReceiptError } from "@/lib/schemas/traces";
import { compressTrace, MissingVerificationReceiptError } from "@/lib/traces/trace";

// Stateless: nothing is stored, not even a fail-closed rejection (that is POST /traces' job).
export const POST = route("/api/v1/traces/compress", async (request) => {
  const { nodes } = parseBody(await readJson(request), compressRequestSchema);
  try {
    return json(compressTrace(nodes));
  } catch (error) {
    if (error instanceof MissingVerificationReceiptError) throw missingReceiptError(error);
    throw error;
  }
});

const notAllowed = methodNotAllowed("/api/v1/traces/compress");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
