import { listPolicyPage } from "@/db/queries/policies";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { policyCursorSchema, policyListQuerySchema } from "@/lib/schemas/policies";

export const GET = route("/api/v1/policies", async (request) => {
  const query = parseSearchParams(request.url, policyListQuerySchema);
  const after = decodeCursor(query.cursor, policyCursorSchema)?.[0];
  const { items, next } = await listPolicyPage({ limit: query.limit, after });
  return json({
    items,
    next_cursor: next === null ? null : encodeCursor([next]),
    default_policy: { ...CONSERVATIVE_DEFAULT_POLICY, version: 0 },
  });
});

const notAllowed = methodNotAllowed("/api/v1/policies");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
