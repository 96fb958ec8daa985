// Hostile requests over real HTTP against the built app, on every page and every route:
// query strings, cursors, raw path segments (badly percent-encoded too), methods, content
// types. Every answer is below 500; every /api 4xx is in the contract's shape. The pages are
// found by walking app/, the routes come from the registry, so nothing new escapes it.
import { readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test } from "@playwright/test";
import fc from "fast-check";
import { ROUTES } from "@/lib/http/registry";
import {
  hostileBody,
  hostileContentType,
  hostileQuery,
  hostileSegment,
  isContractError,
  patternParams,
} from "../support/hostile";

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const port = Number(process.env.E2E_PORT);

function pagePatterns(dir = path.join(process.cwd(), "app"), prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      // Route groups `(name)` add no path segment.
      const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name.replace(/^\[(\w+)\]$/, "{$1}")}`;
      return pagePatterns(path.join(dir, entry.name), prefix + segment);
    }
    return entry.name === "page.tsx" ? [prefix || "/"] : [];
  });
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** A raw request: the path goes on the wire exactly as given, bad percent-encoding and all. */
function send(method: string, rawPath: string, body?: string, contentType?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const request = http.request({ host: "127.0.0.1", port, method, path: rawPath, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => {
        chunks.push(c);
        // Event streams never end by themselves: their status and headers are what count.
        if (String(response.headers["content-type"]).startsWith("text/event-stream")) response.destroy();
      });
      response.on("close", () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    request.on("error", reject);
    request.setTimeout(30_000, () => request.destroy(new Error(`timeout: ${method} ${rawPath}`)));
    request.end(body);
  });
}

function check(answer: Answer, what: string): void {
  const context = `${what} → ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) throw new Error(`5xx: ${context}`);
  // A page can answer 200 while a part of it failed on the server: the streamed payload then
  // carries an error row with a numeric digest (`notFound()` rows carry a named one).
  const failedPart = /[0-9a-f]+:E\{\\?"digest\\?":\\?"\d+\\?"/.exec(answer.text);
  if (failedPart) throw new Error(`a part of the page failed on the server (${failedPart[0]}): ${context}`);
  // A HEAD answer has no body to be in any shape.
  const [method, url] = what.split(" ");
  if (method !== "HEAD" && new URL(url ?? "/", "http://x").pathname.startsWith("/api/") && answer.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    if (!isContractError(parsed)) throw new Error(`not the error contract: ${context}`);
  }
}

function fill(pattern: string, segments: string[]): string {
  let url: string = pattern;
  patternParams(pattern).forEach((name, i) => {
    url = url.replace(`{${name}}`, segments[i] ?? "x");
  });
  return url;
}

const pages = pagePatterns();

test("finds the pages and routes to fuzz", () => {
  expect(pages).toContain("/chains/{chain_id}");
  expect(Object.keys(ROUTES).length).toBeGreaterThan(10);
});

for (const pattern of pages) {
  test(`page ${pattern}: hostile paths and query strings answer below 500`, async () => {
    test.setTimeout(180_000);
    const names = patternParams(pattern);
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileSegment, { minLength: names.length, maxLength: names.length }),
        hostileQuery,
        fc.constantFrom("GET", "GET", "GET", "HEAD", "POST"),
        hostileBody,
        hostileContentType,
        async (segments, query, method, body, contentType) => {
          const url = `${fill(pattern, segments)}${query ? `?${query}` : ""}`;
          const post = method === "POST";
          check(await send(method, url, post ? body : undefined, post ? contentType : undefined), `${method} ${url}`);
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
}

for (const [pattern, methods] of Object.entries(ROUTES)) {
  test(`route ${pattern}: hostile requests answer below 500 in the contract's shape`, async () => {
    test.setTimeout(180_000);
    const names = patternParams(pattern);
    const declared = Object.keys(methods);
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileSegment, { minLength: names.length, maxLength: names.length }),
        hostileQuery,
        fc.constantFrom(...declared, ...declared, "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
        hostileBody,
        hostileContentType,
        async (segments, query, method, body, contentType) => {
          const url = `${fill(pattern, segments)}${query ? `?${query}` : ""}`;
          const sendsBody = method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
          const answer = await send(method, url, sendsBody ? body : undefined, sendsBody ? contentType : undefined);
          check(answer, `${method} ${url}`);
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
}

test("methods Next.js does not route, and undecodable paths, answer below 500 everywhere", async () => {
  const paths = [
    ...Object.keys(ROUTES).map((p) =>
      fill(
        p,
        patternParams(p).map(() => "x"),
      ),
    ),
    ...pages.map((p) =>
      fill(
        p,
        patternParams(p).map(() => "x"),
      ),
    ),
    "/api/v1/chains/%FF",
    "/chains/%FF",
    "/traces/%C0%AF",
    "/originals/%E2%82",
    "/originals/%E2%82/content",
    "/%",
    "/api/%zz",
    "/no-such-page",
    "/api/v1/no-such-route",
  ];
  for (const url of paths) {
    for (const method of ["TRACE", "TRACK", "PROPFIND", "PURGE", "GET"]) {
      check(await send(method, url), `${method} ${url}`);
    }
  }
});

test("a query that swaps the prototype of the page's search params renders every part of the page", async () => {
  for (const pattern of pages) {
    const url = `${fill(
      pattern,
      patternParams(pattern).map(() => "x"),
    )}?__proto__=a&__proto__=b&sort=x&status=y&next=z`;
    check(await send("GET", url), `GET ${url}`);
  }
});

test("a page named with a NUL or an unpaired surrogate is not found, not a database error", async ({ page }) => {
  for (const [path, heading] of [
    ["/traces/%00", /No such trace/],
    ["/traces/a%ED%A0%80b", /No such trace|not found/i],
    ["/originals/%00", /No such original/],
    ["/chains/%00", /not found|No chain|no receipts/i],
    ["/chains/%00/action-space", /not found|No chain|no receipts/i],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first(), path).toHaveText(heading);
  }
});
