import { z } from "zod";
import { createApiKey, listApiKeyPage, operatorsExist } from "@/db/queries/access";
import { actorName, authMode, keyCreatedNotice } from "@/lib/auth/access";
import { envRecord } from "@/lib/env";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { ACCESS_ROUTES } from "@/lib/routes/access";
import { authIsOn } from "@/app/_access/gate";
import { requestFacts } from "@/app/_access/request-facts";
import { createKeySchema, keyListQuerySchema } from "@/lib/schemas/access";

const cursorSchema = z.tuple([cursorPart.timestamp, cursorPart.text]);

/**
 * The full key is in this answer only; the database keeps its hash. While no operator exists
 * the answer says what the key changed: a caller who needed no credential (the open mode of a
 * fresh install) has just turned access control on, and the dashboard now needs an operator.
 */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ACCESS_ROUTES.keys, {
  GET: async (request) => {
    const { cursor, limit } = parseSearchParams(request.url, keyListQuerySchema);
    const { items, next } = await listApiKeyPage({ limit, after: decodeCursor(cursor, cursorSchema) });
    return json({ items, next_cursor: next ? encodeCursor(next) : null });
  },
  POST: async (request, _context, principal) => {
    const input = parseBody(await readJson(request), createKeySchema);
    const wasOpen = !(await authIsOn(requestFacts(request.headers, request.url)));
    const created = await createApiKey({ ...input, createdBy: actorName(principal) });
    // Forced off, a key changes nothing for the pages.
    const notice =
      authMode(envRecord()) === "off"
        ? null
        : keyCreatedNotice({ turnedAccessOn: wasOpen, operatorsExist: await operatorsExist() });
    return json({ ...created, notice }, 201, { "cache-control": "no-store" });
  },
});
