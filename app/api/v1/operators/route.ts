import { createOperator, listOperators } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { readSecretJson } from "@/app/_access/secret-body";
import { parseBody } from "@/lib/http/batch";
import { json, serve } from "@/app/_access/api-route";
import { ACCESS_ROUTES } from "@/lib/routes/access";
import { createOperatorSchema } from "@/lib/schemas/access";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ACCESS_ROUTES.operators, {
  GET: async () => json({ items: await listOperators(), next_cursor: null }),
  POST: async (request) => {
    const input = parseBody(await readSecretJson(request), createOperatorSchema);
    const created = await createOperator(input);
    if (!created) throw new ApiError("name_taken", `An operator named ${JSON.stringify(input.name)} already exists.`);
    return json(created, 201);
  },
});
