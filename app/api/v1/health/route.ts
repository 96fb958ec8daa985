import { checkDatabase } from "@/db/queries/health";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";

export const dynamic = "force-dynamic";

export const GET = route("/api/v1/health", async () => {
  if (!(await checkDatabase())) {
    throw new ApiError("database_unavailable", "The database is not answering.", { headers: { "Retry-After": "5" } });
  }
  return json({ status: "ok", database: "ok" });
});

const notAllowed = methodNotAllowed("/api/v1/health");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
