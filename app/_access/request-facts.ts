// Where a request came from, as far as the app can know it: the socket facts that
// scripts/start.ts stamped on it (lib/auth/client-address.ts), the trusted proxies, and
// what those proxies say. Everything the access check decides by address starts here.
import "server-only";
import { isHttps } from "@/lib/auth/access";
import {
  clientAddressOf,
  hasForwardingHeaders,
  isTrusted,
  NO_PROXIES,
  parseSocketStamp,
  SOCKET_HEADER,
  socketSecret,
  stamplessFacts,
} from "@/lib/auth/client-address";
import type { RequestFacts } from "@/lib/auth/decision";
import { env } from "@/lib/env";

export function requestFacts(headers: Headers, url: string): RequestFacts {
  const stamp = headers.get(SOCKET_HEADER);
  const socket = stamp === null ? stamplessFacts() : parseSocketStamp(stamp, socketSecret());
  // The server decides "forwarded" before Next.js adds its own X-Forwarded-For; a request
  // called in-process has only its own headers.
  const trusted = env("FLOORLINE_TRUSTED_PROXIES") ?? NO_PROXIES;
  const viaTrustedProxy = socket !== null && isTrusted(socket.peer, trusted);
  return {
    socket,
    client: socket ? clientAddressOf(socket.peer, headers, trusted) : "unknown",
    viaTrustedProxy,
    forwarded: stamp === null ? hasForwardingHeaders(headers) : Boolean(socket?.forwarded),
    // Next.js builds the request's URL from X-Forwarded-Proto, whoever sent it, and the start
    // script serves no TLS itself: a stamped request is https only on a trusted proxy's word.
    https: stamp !== null ? viaTrustedProxy && isHttps("http:", headers, true) : isHttps(url, headers, viaTrustedProxy),
  };
}
