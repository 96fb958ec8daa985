// The credential of the CLI on the server's own machine. A server on an embedded data folder
// holds that folder's lock, so the CLI cannot open the database beside it: it asks the server
// instead, with a token the server makes fresh at each start and writes only inside the data
// folder (db/server-record.ts, mode 0600). Whoever can read it can read the database files
// themselves, so it grants nothing the folder does not; it counts only from a loopback peer
// that came through no proxy (app/_access/gate.ts).
import { randomBytes } from "node:crypto";
import { processSingleton } from "../process-singleton";
import { hostAllowed } from "./access";
import { isLoopbackAddress, normalizeAddress } from "./client-address";
import { constantTimeEqual } from "./credentials";

/** The name the CLI's token acts under: what it creates is recorded as made by `cli`. */
export const LOCAL_TOKEN_NAME = "cli";

const state = () => processSingleton("local-cli-token", () => ({ token: null as string | null }));

/** Makes this process's token (replacing any earlier one) and returns it. */
export function newLocalToken(): string {
  const token = randomBytes(32).toString("base64url");
  state().token = token;
  return token;
}

/** Forgets the token: the server no longer publishes it. */
export function dropLocalToken(): void {
  state().token = null;
}

/** Whether a bearer credential is this process's token. */
export function isLocalToken(candidate: string): boolean {
  const token = state().token;
  return token !== null && constantTimeEqual(candidate, token);
}

const UNSPECIFIED: Record<string, string> = { "0.0.0.0": "127.0.0.1", "::": "::1", "0:0:0:0:0:0:0:0": "::1" };

/**
 * How a process on this machine reaches a server bound to `bound`: over loopback, with a Host
 * header the server answers to (`allowed`, as allowedHostsOf says). Null when the server
 * listens on one address that is not loopback: a connection to it would not come from a
 * loopback peer, so the token would not count.
 */
export function localReach(
  bound: string,
  port: number,
  allowed: readonly string[],
): { address: string; host: string } | null {
  const address = isLoopbackAddress(bound) ? normalizeAddress(bound) : UNSPECIFIED[normalizeAddress(bound)];
  if (!address) return null;
  const own = `${address.includes(":") ? `[${address}]` : address}:${port}`;
  if (hostAllowed(own, allowed)) return { address, host: own };
  // FLOORLINE_ALLOWED_HOSTS without a loopback name: one of its names, which the Host check
  // accepts (the connection still goes to loopback).
  const named = allowed.find((a) => a !== "*") ?? "localhost";
  return { address, host: `${named.startsWith("*.") ? `cli${named.slice(1)}` : named}:${port}` };
}
