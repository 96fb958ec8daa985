// Pure access rules around the one decision (lib/auth/decision.ts `decideAccess`): which Host
// headers are ours, whether a write came from our own origin, what a principal may read of
// originals, session cookies and tokens, and what the server says about access at start-up.
// No I/O here: the route wrapper and the page helper feed these the request and what the
// database says.
import { env } from "../env";
import { ApiError } from "../errors";
import { ROUTES } from "../http/registry";
import { type AuthMode, accessSettings, authMode, hasScope, type Principal } from "./decision";

// The decision's names that the rest of the app has always imported from here.
export { admits, authMode, hasScope, type Principal, scopesOfRole } from "./decision";

/** Environment variables as read here (process.env in the app, a plain object in tests). */
type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether a principal may read cached originals, and so anything derived from one: the facts a
 * measurement takes from it, its summary and metadata, which entry a prefix names, and a
 * change to its metadata (docs/access.md, "Derived data"). It is the scope reading one needs,
 * so no route tells a caller more of an original than reading it would. Tenants grant
 * nothing: each call names one and looks only there.
 */
export function mayReadOriginals(principal: Principal): boolean {
  return hasScope(principal, ROUTES["/api/v1/originals/{hash}"].GET);
}

/** The name recorded on what a principal writes (policy versions): the operator or the key. */
export function actorName(principal: Principal): string | null {
  switch (principal.kind) {
    case "operator":
      return principal.name;
    case "key":
      return `key:${principal.name}`;
    case "token":
      return principal.name;
    default:
      return null;
  }
}

/**
 * Why access control is on for every request, or null when it depends on the request: the
 * one decision's `accessOn` (lib/auth/decision.ts) said of the server as a whole at start-up,
 * with the address it listens on standing for every request's socket.
 */
export function authReason(input: {
  mode: AuthMode;
  listenHost: string;
  credentialsExist: boolean;
  legacyToken: boolean;
  trustedProxies?: boolean;
}): string | null {
  if (input.mode === "off") return null;
  if (input.mode === "on") return "FLOORLINE_AUTH=on";
  if (input.credentialsExist) return "API keys or operators exist";
  if (input.legacyToken) return "FLOORLINE_API_TOKEN is set";
  if (!isLoopbackHost(input.listenHost)) return `the server listens on ${input.listenHost}, which is not loopback`;
  if (input.trustedProxies) return "FLOORLINE_TRUSTED_PROXIES is set: requests come through a proxy";
  return null;
}

/** The address the server listens on: `HOST` as scripts/start.ts sets it from its flags. */
function listenHostOf(source: Env): string {
  return env("HOST", source) ?? "127.0.0.1";
}

/**
 * Strips the port and IPv6 brackets, lower-cases: `[::1]:3000` → `::1`. A Host header that is
 * not `name[:port]` or `[address][:port]` (`127.0.0.1:3200@evil.com`, `[::1].evil.com`) comes
 * back whole, so it names no loopback and no allowed host.
 */
function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1] as string;
  const named = /^([^:[\]]*)(?::\d*)?$/.exec(host);
  if (named) return (named[1] as string).replace(/\.$/, "");
  // A bare IPv6 address (colons, no brackets) has no port; anything else stays unmatched.
  return host;
}

export function isLoopbackHost(host: string): boolean {
  const name = hostName(host);
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "::1" ||
    name === "0:0:0:0:0:0:0:1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

const UNSPECIFIED = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]);

/**
 * `FLOORLINE_ALLOWED_HOSTS` (comma-separated names; `*.example.com` matches subdomains), else
 * the loopback names and the listen address. A server on 0.0.0.0 answers to any address of
 * the machine, so it must be told which names it is reached by: until then only loopback.
 */
export function allowedHostsOf(source: Env): string[] {
  const configured = env("FLOORLINE_ALLOWED_HOSTS", source);
  if (configured) return configured;
  const listen = hostName(listenHostOf(source));
  return ["localhost", "127.0.0.1", "::1", ...(UNSPECIFIED.has(listen) || isLoopbackHost(listen) ? [] : [listen])];
}

export function hostAllowed(hostHeader: string | null, allowed: readonly string[]): boolean {
  if (!hostHeader) return false;
  const name = hostName(hostHeader);
  if (allowed.includes("*")) return true;
  if (isLoopbackHost(name) && allowed.some((a) => isLoopbackHost(a))) {
    // Loopback names are allowed as a family once one is: a DNS-rebinding page cannot be on them.
    return true;
  }
  return allowed.some((a) => (a.startsWith("*.") ? name.endsWith(a.slice(1)) : hostName(a) === name));
}

/**
 * Whether a write came from a page of this origin: every signal the request carries must say
 * so, `Sec-Fetch-Site` (every current browser) and `Origin`. A request with neither is not
 * from a browser page (a script holding the cookie is not something a web page can be).
 * Both are checked where both are sent: Next.js refuses a server action whose Origin is not
 * this host with a 500, so that one must never get past the 403 on the strength of the other.
 */
export function isSameOrigin(
  headers: Pick<Headers, "get">,
  ownHost: string | null,
  forwardedProto?: string | null,
): boolean {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = headers.get("origin");
  if (!origin) return true;
  if (origin === "null" || !ownHost) return false;
  try {
    const url = new URL(origin);
    if (url.host.toLowerCase() !== ownHost.trim().toLowerCase()) return false;
    return !forwardedProto || url.protocol === `${(forwardedProto.split(",")[0] ?? "").trim()}:`;
  } catch {
    return false;
  }
}

/** Methods that change nothing: the only ones a cross-site request may make with a cookie. */
function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

/**
 * The refusal (403 `cross_site_request`) of a write that a page of another site may have
 * sent, or null. The API asks it of writes that carry the session cookie; the HTTP server
 * asks it of every write to a page (server actions), as an action runs with whatever
 * authority the browser lends it. `forwardedProto` only from a trusted proxy.
 */
export function crossSiteRefusal(
  method: string,
  headers: Pick<Headers, "get">,
  ownHost: string | null,
  forwardedProto: string | null,
): ApiError | null {
  if (isSafeMethod(method) || isSameOrigin(headers, ownHost, forwardedProto)) return null;
  return new ApiError("cross_site_request", "A write must come from this site's own pages.");
}

/** What a browser makes of an href before resolving it: tab, LF and CR vanish, `\\` is `/`. */
function asBrowserReads(href: string): string {
  return href.replace(/[\t\n\r]/g, "").replace(/\\/g, "/");
}

const OWN_ORIGIN = "http://floorline.invalid";

/**
 * A `next` target for the sign-in redirect: a path of this site only. It is read the way a
 * browser reads an href (so `/\t/evil` is `//evil`), and refused when it, or any decoding of
 * it, starts with two slashes: whatever later decodes it once more must not leave the site.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (typeof next !== "string") return "/";
  const href = asBrowserReads(next);
  if (!href.startsWith("/") || href.startsWith("//")) return "/";
  let decoded = href;
  for (let i = 0; i < 4; i++) {
    let once: string;
    try {
      once = asBrowserReads(decodeURIComponent(decoded));
    } catch {
      break;
    }
    if (once.startsWith("//") || !once.startsWith("/")) return "/";
    if (once === decoded) break;
    decoded = once;
  }
  let url: URL;
  try {
    url = new URL(href, OWN_ORIGIN);
  } catch {
    return "/";
  }
  return url.origin === OWN_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : "/";
}

/** Fills a `{name}` pattern with its params: `/chains/{chain_id}` → `/chains/run-1`. */
export function fillPattern(pattern: string, params: Record<string, string> = {}): string {
  return pattern.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name] ?? "";
    // Page params may arrive still percent-encoded: decode once so they are not encoded twice.
    let decoded = value;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      // not valid percent-encoding: encode it as it is
    }
    return encodeURIComponent(decoded);
  });
}

/** Idle expiry of a session (`FLOORLINE_SESSION_IDLE_MINUTES`, default 12 hours). */
export function sessionIdleMs(source: Env): number {
  return (env("FLOORLINE_SESSION_IDLE_MINUTES", source) ?? 12 * 60) * 60_000;
}

/** Absolute lifetime of a session however busy (`FLOORLINE_SESSION_MAX_HOURS`, default 7 days). */
export function sessionMaxMs(source: Env): number {
  return (env("FLOORLINE_SESSION_MAX_HOURS", source) ?? 7 * 24) * 3_600_000;
}

/** Whether the request reached us over https: directly, or through a trusted proxy that says so. */
export function isHttps(url: string, headers: Headers, viaTrustedProxy: boolean): boolean {
  const forwarded = viaTrustedProxy ? headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
  if (forwarded) return forwarded === "https";
  return url.startsWith("https:");
}

const SESSION_COOKIE = "floorline_session";
/**
 * Over https the cookie is `__Host-` prefixed: the browser then keeps it only if it is
 * Secure, for `/`, and set by this host itself, so a sibling subdomain cannot plant one.
 */
const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${sessionCookieName(secure)}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie("", secure, 0);
}

/**
 * The session token from a Cookie header, if any: over https only the `__Host-` cookie
 * counts (one without the prefix may have been planted); over http only the plain one.
 */
export function sessionTokenOf(cookieHeader: string | null, secure = false): string | null {
  if (!cookieHeader) return null;
  const name = sessionCookieName(secure);
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** `Authorization: Bearer <token>` → the token; anything else (Basic, a bare token) is no credential. */
export function bearerTokenOf(header: string | null): string | null {
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/** The CLI command that makes the first operator, as the pages and messages quote it. */
export const FIRST_OPERATOR_COMMAND = "npm run floorline -- operators create --name admin --role admin";

/** How to make the first credentials: said at start-up and in every 401 until one exists. */
export const FIRST_CREDENTIALS = [
  `  ${FIRST_OPERATOR_COMMAND}`,
  "  npm run floorline -- keys create --name agent --scopes ingest,read",
  "(with the embedded database the CLI goes through the running server; give it the same --data-dir)",
].join("\n");

/**
 * What creating an API key changed, said in its answer (the API, the CLI, the keys page) while
 * no operator exists: the dashboard now asks every page for a signed-in operator. Null when
 * an operator exists, so nothing is locked.
 */
export function keyCreatedNotice(input: { turnedAccessOn: boolean; operatorsExist: boolean }): string | null {
  if (input.operatorsExist) return null;
  const how = `No operator exists yet: open /sign-in in a browser on the server's machine (or with FLOORLINE_API_TOKEN) to create the first admin, or run on that machine: ${FIRST_OPERATOR_COMMAND}`;
  return input.turnedAccessOn
    ? `Access control is now on: every page needs a signed-in operator and every API call a key. ${how}`
    : `Every page needs a signed-in operator. ${how}`;
}

/** What the server says about access at start-up: a warning when forced off or on with nothing to sign in with. */
export function accessStartupMessage(source: Env, credentialsExist: boolean): { warn: boolean; text: string } {
  const hosts = hostsMessage(source);
  const message = accessMessage(source, credentialsExist);
  return hosts ? { warn: true, text: `${message.text}\n${hosts}` } : message;
}

/** A server on every address answers only loopback names until told the names clients use. */
function hostsMessage(source: Env): string | null {
  if (env("FLOORLINE_ALLOWED_HOSTS", source) || !UNSPECIFIED.has(hostName(listenHostOf(source)))) return null;
  return `requests are answered only for the Host names ${allowedHostsOf(source).join(", ")}: set FLOORLINE_ALLOWED_HOSTS to the names clients use (e.g. floorline.example.com,10.0.0.5)`;
}

function accessMessage(source: Env, credentialsExist: boolean): { warn: boolean; text: string } {
  const { mode, legacyToken, trustedProxiesSet } = accessSettings(source);
  const listenHost = listenHostOf(source);
  if (mode === "off") {
    return {
      warn: true,
      text: [
        "!!! ACCESS CONTROL IS OFF (FLOORLINE_AUTH=off) !!!",
        `!!! Anyone who can reach ${listenHost} can read every chain and change every floor. !!!`,
        "!!! Unset FLOORLINE_AUTH to use API keys and sign-in. !!!",
      ].join("\n"),
    };
  }
  const reason = authReason({ mode, listenHost, credentialsExist, legacyToken, trustedProxies: trustedProxiesSet });
  if (!reason) {
    return {
      warn: false,
      text: `no API key or operator yet: requests from this machine that came through no proxy need none; every other request is refused until one exists. Create the first ones with:\n${FIRST_CREDENTIALS}`,
    };
  }
  if (credentialsExist || legacyToken) return { warn: false, text: `access control on (${reason})` };
  return {
    warn: true,
    text: `access control is on (${reason}) but no API key or operator exists yet, so nothing can get in. Create the first ones:\n${FIRST_CREDENTIALS}`,
  };
}

/**
 * Why FLOORLINE_AUTH=off must not start on this listen address, or null when it may: only
 * on loopback, unless FLOORLINE_AUTH_OFF_I_UNDERSTAND=1 says the operator means it.
 */
export function authOffRefusal(source: Env, boundAddress: string): string | null {
  if (authMode(source) !== "off" || env("FLOORLINE_AUTH_OFF_I_UNDERSTAND", source) === "1") return null;
  if (isLoopbackHost(boundAddress)) return null;
  return `FLOORLINE_AUTH=off on ${boundAddress}, which is not loopback, would let anyone who can reach it read every chain and change every floor. Listen on 127.0.0.1, or unset FLOORLINE_AUTH and create an API key, or set FLOORLINE_AUTH_OFF_I_UNDERSTAND=1 if you really mean it.`;
}
