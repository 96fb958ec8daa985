import { listPolicies } from "@/db/queries/policies";
import { json, methodNotAllowed, route } from "@/lib/http/route";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/policy";

export const GET = route(async () => {
  const items = await listPolicies();
  return json({ items, next_cursor: null, default_policy: { ...CONSERVATIVE_DEFAULT_POLICY, version: 0 } });
});

const notAllowed = methodNotAllowed(["GET"]);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
