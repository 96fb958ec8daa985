import { createApiKey, listApiKeys } from "@/db/queries/access";
import { actorName } from "@/lib/auth/access";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { createKeySchema } from "@/lib/schemas/access";

// A deployment has a handful of keys: one page holds them all.
export const GET = route("/api/v1/keys", async () => json({ items: await listApiKeys(), next_cursor: null }));

/** The full key is in this answer only; the database keeps its hash. */
export const POST = route("/api/v1/keys", async (request, _context, principal) => {
  const input = parseBody(await readJson(request), createKeySchema);
  const created = await createApiKey({ ...input, createdBy: actorName(principal) });
  return json(created, 201, { "cache-control": "no-store" });
});

const notAllowed = methodNotAllowed("/api/v1/keys");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
