// Pure access decisions: when auth is on, what a principal may do,
// which Host headers are ours, and whether a write came from our own origin. No I/O here:
// the route wrapper and the page helper feed these the request and what the database says.
import type { KeyScope, Role } from "./credentials";

export type { KeyScope, Role };

/** Environment variables as read here (process.env in the app, a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Who is asking: nobody (auth off or public route), a key, the legacy token, or an operator. */
export type Principal =
  | { kind: "anonymous" }
  | { kind: "key"; id: string; name: string; scopes: readonly KeyScope[] }
  | { kind: "token"; name: string; scopes: readonly KeyScope[] }
  | { kind: "operator"; id: number; name: string; role: Role; sessionId: string; scopes: readonly KeyScope[] };

/** What an operator's role lets the dashboard do, in key scopes: viewers read, admins also administer. */
export function scopesOfRole(role: Role): KeyScope[] {
  return role === "admin" ? ["read", "admin"] : ["read"];
}

export function hasScope(principal: Principal, scope: KeyScope): boolean {
  return principal.kind === "anonymous" || principal.scopes.includes(scope);
}

/** Whether a principal may call a route of this (non-public) scope: `ingest or read` takes either key scope. */
export function admits(principal: Principal, scope: KeyScope | "ingest or read"): boolean {
  return scope === "ingest or read"
    ? hasScope(principal, "ingest") || hasScope(principal, "read")
    : hasScope(principal, scope);
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

export type AuthMode = "on" | "off" | "auto";

export function authMode(env: Env): AuthMode {
  const value = env.FLOORLINE_AUTH?.trim().toLowerCase();
  if (value === "on" || value === "1" || value === "true") return "on";
  if (value === "off" || value === "0" || value === "false") return "off";
  return "auto";
}

/** Why auth is on (for the start-up message), or null when it is off. */
export function authReason(input: {
  mode: AuthMode;
  listenHost: string;
  credentialsExist: boolean;
  legacyToken: boolean;
}): string | null {
  if (input.mode === "off") return null;
  if (input.mode === "on") return "FLOORLINE_AUTH=on";
  if (input.credentialsExist) return "API keys or operators exist";
  if (input.legacyToken) return "FLOORLINE_API_TOKEN is set";
  if (!isLoopbackHost(input.listenHost)) return `the server listens on ${input.listenHost}, which is not loopback`;
  return null;
}

/** The address the server listens on: `HOST` as scripts/start.ts passes it to `next start`. */
export function listenHostOf(env: Env): string {
  return env.HOST?.trim() || "127.0.0.1";
}

/** Strips the port and IPv6 brackets, lower-cases: `[::1]:3000` → `::1`. */
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]") === -1 ? undefined : host.indexOf("]"));
  const colon = host.indexOf(":");
  // More than one colon without brackets is a bare IPv6 address, which has no port.
  if (colon !== -1 && host.indexOf(":", colon + 1) === -1) return host.slice(0, colon);
  return host.replace(/\.$/, "");
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
export function allowedHostsOf(env: Env): string[] {
  const configured = (env.FLOORLINE_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  if (configured.length > 0) return configured;
  const listen = hostName(listenHostOf(env));
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
 * A write carrying a session cookie must come from a page of this origin. `Sec-Fetch-Site`
 * (every current browser) decides when present; else `Origin`; a request with neither is
 * not from a browser page (a script holding the cookie is not something a web page can be).
 */
export function isSameOrigin(headers: Headers, ownHost: string | null, forwardedProto?: string | null): boolean {
  const site = headers.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
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
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
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

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_FREE_FAILURES = 5;

/**
 * Seconds to wait before another sign-in attempt, given the failures in the window for the
 * name and for the address: the first few are free, then the wait doubles per failure.
 */
export function signInDelaySeconds(failuresForName: number, failuresForAddress: number): number {
  const failures = Math.max(failuresForName, failuresForAddress);
  if (failures < SIGN_IN_FREE_FAILURES) return 0;
  return Math.min(2 ** (failures - SIGN_IN_FREE_FAILURES + 1), SIGN_IN_WINDOW_MS / 1000);
}

/** Idle expiry of a session (`FLOORLINE_SESSION_IDLE_MINUTES`, default 12 hours). */
export function sessionIdleMs(env: Env): number {
  const minutes = Number(env.FLOORLINE_SESSION_IDLE_MINUTES);
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : 12 * 60) * 60_000;
}

/** Whether the request reached us over https, directly or through a proxy that says so. */
export function isHttps(url: string, headers: Headers): boolean {
  const forwarded = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return url.startsWith("https:");
}

export const SESSION_COOKIE = "floorline_session";

export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${token}`,
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

/** The session token from a Cookie header, if any. */
export function sessionTokenOf(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** `Authorization: Bearer <token>` → the token; anything else (Basic, a bare token) is no credential. */
export function bearerTokenOf(header: string | null): string | null {
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/** What the server says about access at start-up: a warning when forced off or on with nothing to sign in with. */
export function accessStartupMessage(env: Env, credentialsExist: boolean): { warn: boolean; text: string } {
  const hosts = hostsMessage(env);
  const message = accessMessage(env, credentialsExist);
  return hosts ? { warn: true, text: `${message.text}\n${hosts}` } : message;
}

/** A server on every address answers only loopback names until told the names clients use. */
function hostsMessage(env: Env): string | null {
  if (env.FLOORLINE_ALLOWED_HOSTS?.trim() || !UNSPECIFIED.has(hostName(listenHostOf(env)))) return null;
  return `requests are answered only for the Host names ${allowedHostsOf(env).join(", ")}: set FLOORLINE_ALLOWED_HOSTS to the names clients use (e.g. floorline.example.com,10.0.0.5)`;
}

function accessMessage(env: Env, credentialsExist: boolean): { warn: boolean; text: string } {
  const mode = authMode(env);
  const listenHost = listenHostOf(env);
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
  const reason = authReason({ mode, listenHost, credentialsExist, legacyToken: Boolean(env.FLOORLINE_API_TOKEN) });
  if (!reason) return { warn: false, text: "access control off: loopback server with no API keys or operators" };
  if (credentialsExist || env.FLOORLINE_API_TOKEN) return { warn: false, text: `access control on (${reason})` };
  return {
    warn: true,
    text: [
      `access control is on (${reason}) but no API key or operator exists yet, so nothing can get in. Create the first ones:`,
      "  npm run floorline -- operators create --name admin --role admin",
      "  npm run floorline -- keys create --name agent --scopes ingest,read",
      "(stop the server first when it uses the embedded database: one process per data folder)",
    ].join("\n"),
  };
}
