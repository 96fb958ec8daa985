import { disableOperator } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { json, serve } from "@/app/_access/api-route";
import { ACCESS_ROUTES } from "@/lib/routes/access";
import { operatorIdSchema } from "@/lib/schemas/access";

/** Disables the operator and ends their sessions; the row stays, so their name stays on what they saved. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(ACCESS_ROUTES.operator, {
  DELETE: async (_request, { params }) => {
    const { id } = await params;
    const parsed = operatorIdSchema.safeParse(id);
    const disabled = parsed.success ? await disableOperator(parsed.data) : null;
    if (!disabled) throw new ApiError("not_found", `There is no operator ${JSON.stringify(id)}.`);
    return json(disabled);
  },
});
