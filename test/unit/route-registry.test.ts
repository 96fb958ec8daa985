// The route registry and the route and page files under app/ must agree: a route file that
// declares no scope, a method missing from the registry, a registry entry with no file, or a
// page that is not in PAGES or does not call requirePage with its own pattern fails here.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { METHODS, PAGES, ROUTES, SCOPES, scopeOf } from "@/lib/http/registry";

const appDir = path.join(process.cwd(), "app");

function filesNamed(dir: string, names: string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesNamed(full, names);
    return names.includes(entry.name) ? [full] : [];
  });
}
const routeFiles = (dir: string) => filesNamed(dir, ["route.ts"]);

/** `app/api/v1/chains/[chain_id]/route.ts` → `/api/v1/chains/{chain_id}`. */
function patternOf(file: string): string {
  const dir = path.relative(appDir, path.dirname(file)).split(path.sep).join("/");
  return `/${dir.replace(/\[([a-z_]+)\]/g, "{$1}")}`;
}

// The catch-all answers unknown API paths with the contract's 404; it serves no route.
const files = routeFiles(appDir).filter((f) => !f.includes("[...path]"));

describe("route registry", () => {
  it("finds the route files", () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((f) => [path.relative(process.cwd(), f), f]))("%s declares every method it serves", (_, file) => {
    const pattern = patternOf(file);
    expect(Object.keys(ROUTES), `${pattern} is missing from lib/http/registry.ts`).toContain(pattern);
    const source = readFileSync(file, "utf8");
    const served = [
      ...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b[^=]*=\s*route(?:<[^(]*>)?\(\s*"([^"]+)"/g),
    ];
    expect(served.length, `${pattern} serves nothing through route()`).toBeGreaterThan(0);
    for (const [, method, declared] of served) {
      expect(declared, `${method} in ${file} names another route`).toBe(pattern);
      expect(scopeOf(pattern as keyof typeof ROUTES, method ?? ""), `${method} ${pattern} has no scope`).toBeDefined();
    }
    const servedMethods = served.map((m) => m[1]).sort();
    const declaredMethods = METHODS.filter((m) => m in ROUTES[pattern as keyof typeof ROUTES]).sort();
    expect(servedMethods).toEqual(declaredMethods);
  });

  it("has no entry without a route file", () => {
    const patterns = new Set(files.map(patternOf));
    for (const pattern of Object.keys(ROUTES)) expect(patterns, pattern).toContain(pattern);
  });
});

/** What is wrong with a page's source: it must call requirePage with its own pattern before awaiting anything else. */
function pageCheckProblems(source: string, pattern: string): string[] {
  const problems: string[] = [];
  const calls = [...source.matchAll(/await requirePage\(\s*"([^"]+)"/g)].map((m) => m[1]);
  if (calls.length !== 1 || calls[0] !== pattern)
    problems.push(`must call requirePage("${pattern}") once, found ${JSON.stringify(calls)}`);
  const body = source.slice(Math.max(0, source.indexOf("export default")));
  const firstAwait = body.indexOf("await ");
  if (firstAwait === -1 || !body.startsWith("await requirePage(", firstAwait))
    problems.push("requirePage must be the first await");
  return problems;
}

const pageFiles = filesNamed(appDir, ["page.tsx", "page.ts", "page.jsx", "page.js"]);

describe("scopes as the contract assigns them", () => {
  it("makes every deletion admin (signing out of one's own session aside)", () => {
    const deletions = Object.entries(ROUTES).flatMap(([pattern, methods]) =>
      "DELETE" in methods ? [[pattern, (methods as Record<string, string>).DELETE]] : [],
    );
    expect(deletions.length).toBeGreaterThan(3);
    for (const [pattern, scope] of deletions) {
      expect([pattern, scope]).toEqual([pattern, pattern === "/api/v1/session" ? "public" : "admin"]);
    }
  });
});

describe("page registry", () => {
  it("finds the pages", () => {
    expect(pageFiles.length).toBeGreaterThan(8);
  });

  it.each(pageFiles.map((f) => [path.relative(process.cwd(), f), f]))(
    "%s is in PAGES and calls requirePage with its own pattern first",
    (_, file) => {
      const pattern = patternOf(file);
      expect(Object.keys(PAGES), `${pattern} is missing from PAGES in lib/http/registry.ts`).toContain(pattern);
      expect(pageCheckProblems(readFileSync(file, "utf8"), pattern)).toEqual([]);
    },
  );

  it("the check catches a page that forgets, names another pattern, or awaits something first", () => {
    const ok = `export default async function P({ params }) {\n  await requirePage("/chains/{chain_id}", await params);\n}`;
    expect(pageCheckProblems(ok, "/chains/{chain_id}")).toEqual([]);
    expect(pageCheckProblems("export default async function P() {\n  return null;\n}", "/x")).not.toEqual([]);
    expect(pageCheckProblems(ok, "/chains")).not.toEqual([]);
    const late = `export default async function P({ params }) {\n  const rows = await listChains();\n  await requirePage("/chains");\n}`;
    expect(pageCheckProblems(late, "/chains")).not.toEqual([]);
  });

  it("has no entry without a page file", () => {
    const patterns = new Set(pageFiles.map(patternOf));
    for (const pattern of Object.keys(PAGES)) expect(patterns, pattern).toContain(pattern);
  });
});

/**
 * What is wrong with a file holding "use server": Next.js lets anyone who knows an action's
 * id call each export of such a file (and each function marked inline) without rendering
 * any page, so every export must be `export const name = serverAction("<scope>", ...)`.
 */
// The directive as a statement of its own line (a mention in a comment is not one).
const USE_SERVER = /^\s*["']use server["'];?\s*$/gm;

function serverActionProblems(source: string): string[] {
  const problems: string[] = [];
  const directive = /^\s*(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*\s*["']use server["']/;
  const fileLevel = directive.test(source);
  const mentions = [...source.matchAll(USE_SERVER)].length;
  if (mentions > (fileLevel ? 1 : 0))
    problems.push("marks a function inline with 'use server': move it to an actions file");
  if (!fileLevel) return problems;
  const exports = [...source.matchAll(/^export\s+(?:default\s+)?(?:async\s+)?(\w+)\s*(\w*)[^\n]*$/gm)];
  if (exports.length === 0) problems.push("exports nothing");
  for (const [line, kind, name] of exports) {
    const wrapped = new RegExp(`^export const ${name} = serverAction\\(\\s*"(${SCOPES.join("|")})"`).test(
      source.slice(source.indexOf(line)).replace(/\n\s*/g, ""),
    );
    if (kind !== "const" || !wrapped) problems.push(`${name || kind} is not made with serverAction("<scope>", ...)`);
  }
  return problems;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js|jsx|mjs)$/.test(entry.name) ? [full] : [];
  });
const actionFiles = ["app", "components", "lib", "db"]
  .flatMap((dir) => sourceFiles(path.join(process.cwd(), dir)))
  .filter((file) => readFileSync(file, "utf8").match(USE_SERVER));

describe("server actions", () => {
  it("finds the actions files", () => {
    expect(actionFiles.length).toBeGreaterThan(0);
  });

  it.each(actionFiles.map((f) => [path.relative(process.cwd(), f), f]))(
    "%s makes every export with serverAction and a scope",
    (_, file) => {
      expect(serverActionProblems(readFileSync(file, "utf8"))).toEqual([]);
    },
  );

  it("the check catches a bare export, a missing scope and an inline action", () => {
    const ok = `"use server";\nimport x from "y";\nexport const preview = serverAction(\n  "read",\n  async () => 1,\n);\n`;
    expect(serverActionProblems(ok)).toEqual([]);
    expect(serverActionProblems(`"use server";\nexport async function preview() {}\n`)).not.toEqual([]);
    expect(serverActionProblems(`"use server";\nexport const preview = async () => 1;\n`)).not.toEqual([]);
    expect(serverActionProblems(`"use server";\nexport const preview = serverAction("nobody", f);\n`)).not.toEqual([]);
    expect(serverActionProblems(`"use server";\n`)).not.toEqual([]);
    const inline = `export default function Page() {\n  async function save() {\n    "use server";\n  }\n}\n`;
    expect(serverActionProblems(inline)).not.toEqual([]);
  });
});
