// The demo's agents run inside the server's process at start-up (PGlite serves one process
// per data folder, so nothing else could write to it): their SDK clients deliver through this
// transport, which hands each request to the same reading of its body and the same use cases
// as the route, and answers with the route's body or the contract's error.
import { ingestBoundaries } from "@/db/ingest/boundaries";
import { ingestPasses } from "@/db/ingest/passes";
import { getPolicy } from "@/db/queries/policies";
import { ApiError } from "@/lib/errors";
import { boundaryReceiptsOf } from "@/lib/schemas/boundaries";
import { passReceiptsOf } from "@/lib/schemas/passes";
import { storeTrace } from "@/db/queries/traces";
import { storeOriginal } from "@/db/queries/originals/store";
import { storeOriginalSchema } from "@/lib/schemas/originals";
import { parseBody } from "@/lib/http/batch";
import { traceSubmissionSchema } from "@/lib/schemas/traces";
import { FloorlineError, type Transport } from "@/sdk/typescript/src/index";

const POLICY = "/api/v1/policies/";

async function answer(method: string, path: string, body: unknown): Promise<unknown> {
  if (method === "GET" && path.startsWith(POLICY)) return getPolicy(decodeURIComponent(path.slice(POLICY.length)));
  if (method === "POST" && path === "/api/v1/passes") {
    const { items, batch } = passReceiptsOf(body);
    // The demo's agents run inside the server, which may read what it caches.
    const { results } = await ingestPasses(items, { readsOriginals: true });
    return batch ? { results } : results[0];
  }
  if (method === "POST" && path === "/api/v1/boundaries") {
    const { items, batch } = boundaryReceiptsOf(body);
    const { results } = await ingestBoundaries(items);
    return batch ? { results } : results[0];
  }
  // A client with cacheOriginals stores each pass's input (demo/nested-marker.ts).
  if (method === "POST" && path === "/api/v1/originals") {
    return (await storeOriginal(parseBody(body, storeOriginalSchema), { readsOriginals: true })).result;
  }
  if (method === "POST" && path === "/api/v1/traces") {
    return (await storeTrace(parseBody(body, traceSubmissionSchema))).trace;
  }
  throw new ApiError("not_found", `The demo's agents do not send ${method} ${path}.`);
}

export const inProcessTransport: Transport = {
  async request(method, path, body) {
    try {
      return await answer(method, path, body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new FloorlineError(error.status, error.code, error.message, error.details.issues ?? []);
    }
  },
};
