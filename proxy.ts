import type { NextRequest } from "next/server";
import { ApiError } from "@/lib/errors";

// Next.js answers a path segment that is not valid percent-encoded UTF-8 (`/chains/%FF`) with
// a plain-text 500 before any handler or page runs. Such a path names nothing we store: API
// paths get the contract's JSON 404, pages a plain 404.
export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return undefined;
  } catch {
    if (pathname.startsWith("/api/")) {
      return new ApiError("not_found", "The path is not valid percent-encoded UTF-8, so it names no resource.").toResponse();
    }
    return new Response("Not found: the address is not valid percent-encoded UTF-8.", {
      status: 404,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
}

export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"] };
