import { json, methodNotAllowed, route } from "@/app/_access/api-route";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { version } from "@/package.json";

// Built once per process: it depends only on the code.
let cached: Record<string, unknown> | null = null;

/** The OpenAPI 3.1 document of this API. Public: it describes the API and holds no data. */
export const GET = route("/api/v1/openapi.json", async () => {
  // The package's version, however the server was started (npm sets npm_package_version only
  // under `npm start`; a bare `next start` answered "1").
  cached ??= buildOpenApiDocument({ version });
  return json(cached, 200, { "cache-control": "no-cache" });
});

const notAllowed = methodNotAllowed("/api/v1/openapi.json");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
