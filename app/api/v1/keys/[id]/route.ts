import { revokeApiKey } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { keyIdSchema } from "@/lib/schemas/access";

type Context = { params: Promise<{ id: string }> };

/** Revokes the key: every instance checks the database per request, so it stops working at once. */
export const DELETE = route<Context>("/api/v1/keys/{id}", async (_request, { params }) => {
  const { id } = await params;
  const revoked = keyIdSchema.safeParse(id).success ? await revokeApiKey(id) : null;
  if (!revoked) throw new ApiError("not_found", `There is no API key ${JSON.stringify(id)}.`);
  return json(revoked);
});

const notAllowed = methodNotAllowed("/api/v1/keys/{id}");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
