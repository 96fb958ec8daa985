import { json, serve } from "@/app/_access/api-route";
import { SERVICE_ROUTES } from "@/lib/routes/service";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { version } from "@/package.json";

// Built once per process: it depends only on the code.
let cached: Record<string, unknown> | null = null;

/** The OpenAPI 3.1 document of this API. Public: it describes the API and holds no data. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(SERVICE_ROUTES.openapi, {
  GET: async () => {
    // The package's version, however the server was started (npm sets npm_package_version only
    // under `npm start`; a bare `next start` answered "1").
    cached ??= buildOpenApiDocument({ version });
    return json(cached, 200, { "cache-control": "no-cache" });
  },
});
