import { listOriginals } from "@/db/queries/originals/browse";
import { clearTenant } from "@/db/queries/originals/delete";
import { storeOriginal } from "@/db/queries/originals/store";
import { mayReadOriginals } from "@/lib/auth/access";
import { MAX_ORIGINAL_BYTES } from "@/lib/originals/rules";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
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

/** Clears one tenant (named explicitly, `tenant=` for the default one): its entries become tombstones. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.list, {
  POST: async (request, _context, principal) => {
    const input = parseBody(await readJson(request, BODY_LIMIT), storeOriginalSchema);
    const { result, created } = await storeOriginal(input, { readsOriginals: mayReadOriginals(principal) });
    return json(result, created ? 201 : 200);
  },
  GET: async (request) => {
    const { cursor, ...query } = parseSearchParams(request.url, originalListQuerySchema);
    const after = decodeOriginalCursor(cursor, query.sort);
    const { items, next } = await listOriginals(query, after);
    return json({ items, next_cursor: next ? encodeCursor(next) : null });
  },
  DELETE: async (request) => {
    const { tenant } = parseSearchParams(request.url, originalClearQuerySchema);
    return json(await clearTenant(tenant));
  },
});
