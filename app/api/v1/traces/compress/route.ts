import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { TRACE_ROUTES } from "@/lib/routes/traces";
import { compressRequestSchema, missingReceiptError } from "@/lib/schemas/traces";
import { compressTrace, MissingVerificationReceiptError } from "@/lib/traces/trace";

// Stateless: nothing is stored, not even a fail-closed rejection (that is POST /traces' job).
export const { GET, POST, PUT, PATCH, DELETE } = serve(TRACE_ROUTES.compress, {
  POST: async (request) => {
    const { nodes } = parseBody(await readJson(request), compressRequestSchema);
    try {
      return json(compressTrace(nodes));
    } catch (error) {
      if (error instanceof MissingVerificationReceiptError) throw missingReceiptError(error);
      throw error;
    }
  },
});
