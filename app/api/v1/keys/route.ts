import { z } from "zod";
import { createApiKey, listApiKeyPage } from "@/db/queries/access";
import { actorName } from "@/lib/auth/access";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { createKeySchema, keyListQuerySchema } from "@/lib/schemas/access";

const cursorSchema = z.tuple([cursorPart.timestamp, cursorPart.text]);

export const GET = route("/api/v1/keys", async (request) => {
  const { cursor, limit } = parseSearchParams(request.url, keyListQuerySchema);
  const { items, next } = await listApiKeyPage({ limit, after: decodeCursor(cursor, cursorSchema) });
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});

/** The full key is in this answer only; the database keeps its hash. */
export const POST = route("/api/v1/keys", async (request, _context, principal) => {
  const input = parseBody(await readJson(request), createKeySchema);
  const created = await createApiKey({ ...input, createdBy: actorName(principal) });
  return json(created, 201, { "cache-control": "no-store" });
});

const notAllowed = methodNotAllowed("/api/v1/keys");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
