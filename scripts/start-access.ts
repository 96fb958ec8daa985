// The access half of the HTTP server in scripts/start.ts: what only the server that owns the
// sockets can do. It refuses settings that would open the server wider than meant, stamps
// each request with its socket's facts (lib/auth/client-address.ts), gives pages a
// Content-Security-Policy with a fresh nonce and https answers HSTS, refuses writes to pages
// (server actions) from other sites before Next.js sees them, and asks the app's page gate
// (lib/auth/page-gate.ts, which asks the one access decision of lib/auth/decision.ts) before
// a page streams, so its answer keeps its status code.
import type { IncomingMessage, ServerResponse } from "node:http";
import { authOffRefusal, crossSiteRefusal, safeNextPath } from "../lib/auth/access";
import {
  formatSocketStamp,
  hasForwardingHeaders,
  isTrusted,
  SOCKET_HEADER,
  socketSecret,
} from "../lib/auth/client-address";
import { newNonce, pagePolicy, STRICT_TRANSPORT_SECURITY } from "../lib/auth/csp";
import { pageGate } from "../lib/auth/page-gate";
import { env, envInvalid, envRecord, MIN_API_TOKEN_LENGTH } from "../lib/env";

/**
 * Why the server must not start with these settings, or null. The messages name the
 * variable, never its value: a secret must not reach a log.
 */
export function accessSettingsRefusal(host: string): string | null {
  if ((env("FLOORLINE_API_TOKEN")?.length ?? MIN_API_TOKEN_LENGTH) < MIN_API_TOKEN_LENGTH) {
    return `FLOORLINE_API_TOKEN is shorter than ${MIN_API_TOKEN_LENGTH} characters; it opens every scope, so make a long random one (e.g. openssl rand -base64 32)`;
  }
  if (envInvalid("FLOORLINE_TRUSTED_PROXIES")) {
    return "FLOORLINE_TRUSTED_PROXIES must be a comma-separated list of addresses and CIDR blocks (e.g. 127.0.0.1,10.0.0.0/8)";
  }
  return authOffRefusal(envRecord(), host);
}

// Request headers only this server may set: the socket's facts, and the page's policy
// (Next.js reads the nonce for its inline scripts from the request's CSP header).
const OURS = new Set([SOCKET_HEADER, "content-security-policy", "content-security-policy-report-only"]);

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A page of the gate's own: no script, the app's wording, a test id like the app's pages.
 * `link` is a path of this site (already made safe) with its label.
 */
function smallPage(
  res: ServerResponse,
  status: number,
  title: string,
  text: string,
  testId: string,
  link: { href: string; label: string },
  headers = {},
) {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${title} · Floorline</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem"><h1>${title}</h1><p data-testid="${testId}">${text} <a href="${escapeHtml(link.href)}">${link.label}</a></p></body></html>`;
  res.writeHead(status, {
    ...headers,
    "cache-control": "no-store",
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Makes the 200 Next.js starts a streamed page with go out as `status`; any other status it
 * sets (a redirect, an error) stands. Node's own writeHead and implicit headers go through
 * the same property.
 */
function keepStatus(res: ServerResponse, status: number): void {
  let current = status;
  Object.defineProperty(res, "statusCode", {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (value: number) => {
      current = value === 200 ? status : value;
    },
  });
}

/** The page to come back to after signing in: the request's, without Next's cache-busting `_rsc`. */
function returnTarget(url: string): string {
  const q = url.indexOf("?");
  if (q === -1 || !/[?&]_rsc=/.test(url)) return url;
  const query = url
    .slice(q + 1)
    .split("&")
    .filter((part) => !part.startsWith("_rsc="))
    .join("&");
  return query ? `${url.slice(0, q)}?${query}` : url.slice(0, q);
}

export function accessFront(routes: {
  isRouteHandler: (pathname: string) => boolean;
  pagePatternOf: (pathname: string) => { pattern: string; path: string } | undefined;
  onError: (error: unknown) => void;
}) {
  const { onError } = routes;
  const secret = socketSecret();
  let boundAddress = "-";

  /** Drops what a client may not send, and stamps the socket's facts. */
  function stamp(req: IncomingMessage): void {
    const raw = req.rawHeaders;
    for (let i = raw.length - 2; i >= 0; i -= 2) if (OURS.has(raw[i]?.toLowerCase() ?? "")) raw.splice(i, 2);
    for (const name of OURS) delete req.headers[name];
    const forwarded = hasForwardingHeaders({ has: (name) => req.headers[name] !== undefined });
    req.headers[SOCKET_HEADER] = formatSocketStamp(secret, {
      peer: req.socket.remoteAddress ?? "",
      listen: boundAddress,
      forwarded,
    });
  }

  /** The scheme a trusted proxy says the client used; null from anyone else. */
  function trustedProto(req: IncomingMessage): string | null {
    const trusted = env("FLOORLINE_TRUSTED_PROXIES");
    if (!trusted || !isTrusted(req.socket.remoteAddress ?? "", trusted)) return null;
    const proto = req.headers["x-forwarded-proto"];
    return (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase() || null;
  }

  /** Whether Next.js renders this path as a page (or its not-found page): not the API, assets or a route handler. */
  function isPagePath(pathname: string): boolean {
    const api = pathname === "/api" || pathname.startsWith("/api/");
    return !api && !pathname.startsWith("/_next/") && !routes.isRouteHandler(pathname);
  }

  /** HSTS over https through a trusted proxy; a nonce policy on whatever Next.js renders as a page. */
  function secureHeaders(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    if (trustedProto(req) === "https") res.setHeader("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    if ((req.method !== "GET" && req.method !== "HEAD") || !isPagePath(pathname)) return;
    const policy = pagePolicy(newNonce());
    req.headers["content-security-policy"] = policy;
    res.setHeader("content-security-policy", policy);
  }

  return {
    /** The address the server is bound to, once it is. */
    listening(address: string): void {
      boundAddress = address;
    },

    prepare(req: IncomingMessage, res: ServerResponse, pathname: string): void {
      stamp(req);
      secureHeaders(req, res, pathname);
    },

    /**
     * A write to a page (a server action) that another site's page may have sent: 403 in the
     * contract's shape, the same refusal as the API's, before Next.js sees it. Next.js would
     * answer an Origin that is not this host with a 500 and run one that sends only
     * `Sec-Fetch-Site: cross-site`; an action runs with whatever the browser lends it (a
     * session, or this machine's open mode), so no cookie is needed for the refusal.
     */
    refusedAsCrossSite(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
      if (!isPagePath(pathname)) return false;
      const headers = {
        get: (name: string) => {
          const value = req.headers[name.toLowerCase()];
          return (Array.isArray(value) ? value.join(", ") : value) ?? null;
        },
      };
      const refusal = crossSiteRefusal(req.method ?? "GET", headers, req.headers.host ?? null, trustedProto(req));
      if (!refusal) return false;
      const body = JSON.stringify(refusal.toBody());
      res.writeHead(refusal.status, {
        "cache-control": "no-store",
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
      return true;
    },

    /** Asks the page gate about a page request; true when it answered (307, 403 or 503; a 404 Next.js renders). */
    async answeredByPageGate(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
      if (req.method !== "GET" && req.method !== "HEAD") return false;
      const page = routes.pagePatternOf(pathname);
      const gate = pageGate();
      if (!page || !gate) return false;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        try {
          headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        } catch {
          // A value Node's parser let through but fetch's Headers refuses: not one the gate reads.
        }
      }
      const target = returnTarget(req.url ?? "/");
      let answer: Awaited<ReturnType<NonNullable<typeof gate>>>;
      try {
        answer = await gate({ ...page, target, headers });
      } catch (error) {
        // The page's own check (requirePage) still runs: only the early status is lost.
        onError(error);
        return false;
      }
      if (!answer) return false;
      if (answer.status === 404) {
        // The page itself calls notFound() and renders its own not-found page (the chain
        // page's waits for the chain to arrive): only its status would be wrong.
        keepStatus(res, 404);
        return false;
      }
      if (answer.status === 307) {
        res.writeHead(307, { "cache-control": "no-store", location: answer.location, "content-length": 0 });
        res.end();
      } else if (answer.status === 403) {
        const text = "This page needs an admin, or this server does not answer to the address you used.";
        smallPage(res, 403, "Not allowed", text, "forbidden", { href: "/", label: "Overview" });
      } else {
        const text = "The server cannot reach its database, so this page cannot be shown. Wait a few seconds, then";
        const again = { href: safeNextPath(target), label: "Try again" };
        smallPage(res, 503, "The database is unavailable", text, "database-unavailable", again, {
          "retry-after": String(answer.retryAfterSeconds),
        });
      }
      return true;
    },
  };
}
