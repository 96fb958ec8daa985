import { disableOperator } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { operatorIdSchema } from "@/lib/schemas/access";

type Context = { params: Promise<{ id: string }> };

/** Disables the operator and ends their sessions; the row stays, so their name stays on what they saved. */
export const DELETE = route<Context>("/api/v1/operators/{id}", async (_request, { params }) => {
  const { id } = await params;
  const parsed = operatorIdSchema.safeParse(id);
  const disabled = parsed.success ? await disableOperator(parsed.data) : null;
  if (!disabled) throw new ApiError("not_found", `There is no operator ${JSON.stringify(id)}.`);
  return json(disabled);
});

const notAllowed = methodNotAllowed("/api/v1/operators/{id}");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
