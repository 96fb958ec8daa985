import { checkDatabase } from "@/db/queries/health";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { SERVICE_ROUTES } from "@/lib/routes/service";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = serve(SERVICE_ROUTES.health, {
  GET: async () => {
    if (!(await checkDatabase())) {
      throw new ApiError("database_unavailable", "The database is not answering.", { headers: { "Retry-After": "5" } });
    }
    return json({ status: "ok", database: "ok" });
  },
});
