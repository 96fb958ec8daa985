import { listPolicyPage } from "@/db/queries/policies";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parseSearchParams } from "@/lib/http/list";
import { json, serve } from "@/app/_access/api-route";
import { POLICY_ROUTES } from "@/lib/routes/policies";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { policyCursorSchema, policyListQuerySchema } from "@/lib/schemas/policies";

export const { GET, POST, PUT, PATCH, DELETE } = serve(POLICY_ROUTES.list, {
  GET: async (request) => {
    const query = parseSearchParams(request.url, policyListQuerySchema);
    const after = decodeCursor(query.cursor, policyCursorSchema)?.[0];
    const { items, next } = await listPolicyPage({ limit: query.limit, after });
    return json({
      items,
      next_cursor: next === null ? null : encodeCursor([next]),
      default_policy: { ...CONSERVATIVE_DEFAULT_POLICY, version: 0 },
    });
  },
});
