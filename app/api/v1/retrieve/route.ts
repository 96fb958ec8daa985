import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { retrievalResponse } from "@/lib/originals/content-cache";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { methodNotAllowed, route } from "@/app/_access/api-route";
import { retrieveRequestSchema } from "@/lib/schemas/originals";

/** The `headroom_retrieve` tool call: `{"hash": "<key from the compression marker>"}`. */
export const POST = route("/api/v1/retrieve", async (request) => {
  const { hash, tenant } = parseBody(await readJson(request), retrieveRequestSchema);
  return retrievalResponse(await retrieveOriginal(hash, { tenant }));
});

const notAllowed = methodNotAllowed("/api/v1/retrieve");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
