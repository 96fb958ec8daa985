import { listOriginals } from "@/db/queries/originals/browse";
import { clearTenant } from "@/db/queries/originals/delete";
import { storeOriginal } from "@/db/queries/originals/store";
import { mayReadOriginals } from "@/lib/auth/access";
import { MAX_ORIGINAL_BYTES } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import {
  decodeOriginalCursor,
  originalClearQuerySchema,
  originalListQuerySchema,
  storeOriginalSchema,
} from "@/lib/schemas/originals";

// An original of the full 32 MiB still has to fit in its JSON envelope, with escaping and
// an optional compressed text beside it; the 32 MiB rule itself is applied to the parsed
// original (413 either way).
const BODY_LIMIT = 2 * MAX_ORIGINAL_BYTES + 1024 * 1024;

export const POST = route("/api/v1/originals", async (request, _context, principal) => {
  const input = parseBody(await readJson(request, BODY_LIMIT), storeOriginalSchema);
  const { result, created } = await storeOriginal(input, { readsOriginals: mayReadOriginals(principal) });
  return json(result, created ? 201 : 200);
});

export const GET = route("/api/v1/originals", async (request) => {
  const { cursor, ...query } = parseSearchParams(request.url, originalListQuerySchema);
  const after = decodeOriginalCursor(cursor, query.sort);
  const { items, next } = await listOriginals(query, after);
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});

/** Clears one tenant (named explicitly, `tenant=` for the default one): its entries become tombstones. */
export const DELETE = route("/api/v1/originals", async (request) => {
  const { tenant } = parseSearchParams(request.url, originalClearQuerySchema);
  return json(await clearTenant(tenant));
});

const notAllowed = methodNotAllowed("/api/v1/originals");
export { notAllowed as PUT, notAllowed as PATCH };
