import type { NextRequest } from "next/server";
import { ApiError } from "@/lib/errors";

// Next.js answers a path segment that is not valid percent-encoded UTF-8 (`/api/v1/chains/%FF`)
// with a plain-text 500 before any handler runs (vercel/next.js#92527). Such a path names
// nothing we store, so it gets the contract's JSON 404. The matcher is as narrow as it can
// be: Next buffers (and silently truncates past 10 MB) the body of every request a proxy
// matches, which would break large uploads, and matching page routes broke the chain page's
// client manifest lookup in Next 16.4. Only API paths holding a percent sign come here.
export function proxy(request: NextRequest) {
  try {
    for (const segment of request.nextUrl.pathname.split("/")) decodeURIComponent(segment);
    return undefined;
  } catch {
    return new ApiError(
      "not_found",
      "The path is not valid percent-encoded UTF-8, so it names no resource.",
    ).toResponse();
  }
}

export const config = { matcher: "/api/:path(.*%.*)" };
