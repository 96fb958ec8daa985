import { listPolicies } from "@/db/queries/policies";
import { json, route } from "@/lib/http/route";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/policy";

export const GET = route(async () => {
  const items = await listPolicies();
  return json({ items, next_cursor: null, default_policy: { ...CONSERVATIVE_DEFAULT_POLICY, version: 0 } });
});
