// Property-based fuzzing of every route handler in the registry, in process: hostile query
// strings, cursors, path segments, bodies and content types, and every method. Whatever
// comes in, the answer is below 500 and every /api error is in the contract's shape. The
// route list comes from lib/http/registry.ts, so a new route is fuzzed without anyone
// remembering to add it here.
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { METHODS, ROUTES, type RoutePattern } from "@/lib/http/registry";
import { setUpTestDatabase } from "../support/database";
import {
  hostileBody,
  hostileContentType,
  hostileQuery,
  hostileSegment,
  isContractError,
  patternParams,
} from "../support/hostile";

setUpTestDatabase({ from: "demo" });

// Runs per route and method; the seed is printed on failure by fast-check, so a failing case
// can be replayed with FUZZ_SEED. Over 20 routes this is well over two thousand requests.
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function loadRoute(pattern: string): Promise<Record<string, Handler | undefined>> {
  const dir = pattern.replace(/\{(\w+)\}/g, "[$1]");
  return import(/* @vite-ignore */ path.join(process.cwd(), "app", dir, "route.ts"));
}

/** What Next.js hands a handler: the decoded segment, or the raw text when it does not decode. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const patterns = Object.keys(ROUTES) as RoutePattern[];
const OTHER_METHODS = ["OPTIONS", "HEAD"] as const;

describe.each(patterns)("fuzz %s", (pattern) => {
  const declared = METHODS.filter((m) => m in ROUTES[pattern]);
  const names = patternParams(pattern);
  const api = pattern.startsWith("/api/");

  it.each([...METHODS])("%s never answers 5xx", async (method) => {
    const module = await loadRoute(pattern);
    const handler = module[method];
    if (!handler) {
      // A method a route does not export is answered by Next itself (405), never by our code.
      expect(declared).not.toContain(method);
      return;
    }
    const writes = method !== "GET" && method !== "DELETE";
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileSegment, { minLength: names.length, maxLength: names.length }),
        hostileQuery,
        writes ? hostileBody : fc.constant(undefined),
        hostileContentType,
        async (segments, query, body, contentType) => {
          let url: string = pattern;
          const params: Record<string, string> = {};
          names.forEach((name, i) => {
            const segment = segments[i] ?? "x";
            url = url.replace(`{${name}}`, segment);
            params[name] = decodeSegment(segment);
          });
          const headers: Record<string, string> = {};
          if (contentType !== undefined) headers["content-type"] = contentType;
          const request = new Request(`http://127.0.0.1${url}${query ? `?${query}` : ""}`, { method, body, headers });
          const response = await handler(request, { params: Promise.resolve(params) });
          const text = await response.text();
          const context = `${method} ${url}?${query} ${contentType ?? "(no type)"} ${body?.slice(0, 200) ?? ""} → ${response.status} ${text.slice(0, 300)}`;
          if (response.status >= 500) throw new Error(`5xx: ${context}`);
          if (api && response.status >= 400) {
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            if (!isContractError(parsed)) throw new Error(`not the error contract: ${context}`);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it.each([...OTHER_METHODS])("%s is not served by our handlers", async (method) => {
    const module = await loadRoute(pattern);
    // HEAD and OPTIONS are Next's: it answers them from the GET handler or with the Allow list.
    expect(module[method]).toBeUndefined();
  });
});
