import { readFileSync } from "node:fs";
import path from "node:path";
import { serve } from "@/app/_access/api-route";
import { SERVICE_ROUTES } from "@/lib/routes/service";

export const dynamic = "force-dynamic";

const SCALAR_VERSION: string = JSON.parse(
  readFileSync(path.join(process.cwd(), "node_modules/@scalar/api-reference/package.json"), "utf8"),
).version;

// Everything the reference needs comes from this origin: the script, the document, no web
// fonts (the system's), no telemetry. The CSP makes that a rule, not a hope.
const CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  hideClientButton: false,
  theme: "default",
  metaData: { title: "Floorline API" },
  // On a phone, long example lines scroll inside their code block instead of widening the page.
  customCss: ".scalar-codeblock-pre { max-width: 100%; overflow-x: auto; } .scalar-app { overflow-x: clip; }",
};

const attr = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Floorline API reference</title>
</head>
<body>
<noscript>The API reference needs JavaScript. The document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
<script id="api-reference" data-url="/api/v1/openapi.json" data-configuration="${attr(JSON.stringify(CONFIGURATION))}"></script>
<script src="/docs/api/scalar.js?v=${attr(SCALAR_VERSION)}"></script>
</body>
</html>
`;

/** The API reference (Scalar), rendered from the generated OpenAPI document. */
export const { GET, POST, PUT, PATCH, DELETE } = serve(SERVICE_ROUTES.reference, {
  GET: async () => {
    return new Response(html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy":
          "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",
        "cache-control": "no-cache",
      },
    });
  },
});
