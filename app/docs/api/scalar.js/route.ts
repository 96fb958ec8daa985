import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { ApiError } from "@/lib/errors";
import { serve } from "@/app/_access/api-route";
import { SERVICE_ROUTES } from "@/lib/routes/service";

// The API reference's script, served from this origin: nothing on the page loads from a CDN.
const SCALAR_BUNDLE = path.join(process.cwd(), "node_modules/@scalar/api-reference/dist/browser/standalone.js");

export const { GET, POST, PUT, PATCH, DELETE } = serve(SERVICE_ROUTES.referenceScript, {
  GET: async () => {
    const size = await stat(SCALAR_BUNDLE).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) throw new ApiError("not_found", "The API reference bundle is not installed.");
    const stream = Readable.toWeb(createReadStream(SCALAR_BUNDLE)) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        "content-length": String(size),
        // The page asks for it with the package's version in the query: a new version is a new URL.
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  },
});
