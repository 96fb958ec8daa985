// Route files serve their route's declaration from here: `serve(ROUTE, { GET: handler })`
// gives all five method exports, each declared method with its scope checked by the one
// access gate. (The wrapper itself is pure and lives in lib/http/route.ts; this module only
// binds it to the gate, which reads the database, so lib/ stays free of db/.)
import "server-only";
import type { RouteContract } from "@/lib/http/contract";
import { BATCH_ANSWER_HEADERS, json, type RouteHandlers, serveRoute } from "@/lib/http/route";
import { authorizeRequest } from "./gate";

export function serve<R extends RouteContract>(declared: R, handlers: RouteHandlers<R>) {
  return serveRoute(declared, handlers, (request, _pattern, scope) => authorizeRequest(request, scope));
}

export { BATCH_ANSWER_HEADERS, json };

/**
 * A JSON answer its handler has already encoded as UTF-8, sent as those bytes: as a stream of
 * that one buffer, since a Response given the buffer itself first copies it (megabytes, for a
 * large batch's answer). Next.js sends either chunked.
 */
export function jsonBytes(bytes: Uint8Array<ArrayBuffer>, status = 200, headers?: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
}
