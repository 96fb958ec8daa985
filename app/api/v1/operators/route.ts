import { createOperator, listOperators } from "@/db/queries/access";
import { ApiError } from "@/lib/errors";
import { readSecretJson } from "@/app/_access/secret-body";
import { parseBody } from "@/lib/http/batch";
import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { createOperatorSchema } from "@/lib/schemas/access";

export const GET = route("/api/v1/operators", async () => json({ items: await listOperators(), next_cursor: null }));

export const POST = route("/api/v1/operators", async (request) => {
  const input = parseBody(await readSecretJson(request), createOperatorSchema);
  const created = await createOperator(input);
  if (!created) throw new ApiError("name_taken", `An operator named ${JSON.stringify(input.name)} already exists.`);
  return json(created, 201);
});

const notAllowed = methodNotAllowed("/api/v1/operators");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
