import { revokeApiKey } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { ACCESS_ROUTES } from "@/lib/routes/access";
import { keyIdSchema } from "@/lib/schemas/access";

/** Revokes the key: every instance checks the database per request, so it stops working at once. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ACCESS_ROUTES.key, {
  DELETE: async (_request, { params }) => {
    const { id } = await params;
    const revoked = keyIdSchema.safeParse(id).success ? await revokeApiKey(id) : null;
    if (!revoked) throw new ApiError("not_found", `There is no API key ${JSON.stringify(id)}.`);
    return json(revoked);
  },
});
