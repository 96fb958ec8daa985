// The route declarations, the registry and the route and page files under app/ must agree: a
// route file that serves no declaration (or another path's), a handler for a method its
// declaration does not name (or none for one it does), a stray method export, a declaration
// with no file, or a page that is not in PAGES or does not call requirePage with its own
// pattern fails here.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { methodsOfRoute, type RouteContract } from "@/lib/http/contract";
import { PAGES, ROUTE_LIST, ROUTES, SCOPES } from "@/lib/http/registry";

const appDir = path.join(process.cwd(), "app");
const routesDir = path.join(process.cwd(), "lib", "routes");

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

/** Every table of route declarations under lib/routes/, by its exported name. */
const tables: Record<string, Record<string, RouteContract>> = {};
for (const file of readdirSync(routesDir).filter((f) => f.endsWith(".ts"))) {
  const module = (await import(path.join(routesDir, file))) as Record<string, unknown>;
  for (const [name, value] of Object.entries(module)) {
    const entries = typeof value === "object" && value !== null ? Object.values(value) : [];
    if (entries.length > 0 && entries.every((e) => typeof e?.path === "string" && typeof e?.methods === "object"))
      tables[name] = value as Record<string, RouteContract>;
  }
}

const HTTP_METHOD = "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS";
const SERVE = /^export const \{ GET, POST, PUT, PATCH, DELETE \} = serve\((\w+)\.(\w+), \{$/gm;

/**
 * What is wrong with a route file's source: it must export the five methods from one
 * `serve(TABLE.route, { ... })` of the declaration of its own path, imported from lib/routes/,
 * with a handler for exactly the methods that declaration names, and export no method otherwise.
 * The handlers' keys are read at the indentation Biome gives an object's own properties.
 */
function routeFileProblems(source: string, pattern: string): string[] {
  const serves = [...source.matchAll(SERVE)];
  if (serves.length !== 1)
    return [`must export its methods from one serve(TABLE.route, {...}), found ${serves.length}`];
  const [call = "", table = "", name = ""] = serves[0] ?? [];
  const problems: string[] = [];
  if (!new RegExp(`^import \\{[^}]*\\b${table}\\b[^}]*\\} from "@/lib/routes/[a-z-]+";$`, "m").test(source))
    problems.push(`${table} is not imported from lib/routes/`);
  const declared = tables[table]?.[name];
  if (!declared) return [...problems, `${table}.${name} is no route declaration`];
  if (declared.path !== pattern) problems.push(`serves ${declared.path}, not its own path ${pattern}`);
  if (!ROUTE_LIST.includes(declared as never)) problems.push(`${table}.${name} is not in the registry's tables`);
  const after = source.slice(source.indexOf(call) + call.length);
  const body = after.slice(0, after.search(/^\}\);$/m));
  const handled = [...body.matchAll(new RegExp(`^  (?:async )?(${HTTP_METHOD}|\\w+)\\b\\s*[:(,]`, "gm"))].map(
    (m) => m[1],
  );
  const expected = methodsOfRoute(declared);
  if (JSON.stringify([...handled].sort()) !== JSON.stringify([...expected].sort()))
    problems.push(`handles ${handled.join(", ") || "nothing"}; ${declared.path} declares ${expected.join(", ")}`);
  const stray = [
    ...source.matchAll(new RegExp(`^export (?:async )?(?:const|let|var|function) (${HTTP_METHOD})\\b`, "gm")),
    ...source.matchAll(new RegExp(`^export \\{[^}]*\\bas (${HTTP_METHOD})\\b`, "gm")),
  ];
  for (const [line] of stray) problems.push(`exports a method outside serve: ${line}`);
  return problems;
}

describe("route registry", () => {
  it("finds the route files and the declarations", () => {
    expect(files.length).toBeGreaterThan(10);
    expect(Object.keys(tables).length).toBeGreaterThan(5);
  });

  it.each(files.map((f) => [path.relative(process.cwd(), f), f]))("%s serves its own declaration", (_, file) => {
    const pattern = patternOf(file);
    expect(Object.keys(ROUTES), `${pattern} has no declaration in lib/routes/`).toContain(pattern);
    expect(routeFileProblems(readFileSync(file, "utf8"), pattern)).toEqual([]);
  });

  it("has no declaration without a route file", () => {
    const patterns = new Set(files.map(patternOf));
    for (const route of ROUTE_LIST) expect(patterns, route.path).toContain(route.path);
    for (const table of Object.values(tables))
      for (const route of Object.values(table)) expect(ROUTE_LIST, route.path).toContain(route);
  });

  it("the check catches a file with no declaration, another path's, a method too many or too few, a stray export", () => {
    const ok = [
      'import { json, serve } from "@/app/_access/api-route";',
      'import { CHAIN_ROUTES } from "@/lib/routes/chains";',
      "",
      "export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.list, {",
      "  GET: async (request) => {",
      "    return json({ items: [], next: { POST: 1 } });",
      "  },",
      "});",
      "",
    ].join("\n");
    const chains = (source: string) => routeFileProblems(source, "/api/v1/chains");
    expect(chains(ok)).toEqual([]);
    expect(routeFileProblems(ok, "/api/v1/chains/{chain_id}")).not.toEqual([]);
    expect(chains(ok.replace("CHAIN_ROUTES.list", "CHAIN_ROUTES.nothing"))).not.toEqual([]);
    expect(chains(ok.replace(" = serve(", " = route("))).not.toEqual([]);
    expect(chains(ok.replace('"@/lib/routes/chains"', '"./chains"'))).not.toEqual([]);
    expect(chains(ok.replace("  GET: async", "  POST: async"))).not.toEqual([]);
    expect(chains(ok.replace("  },\n});", "  },\n  DELETE: async () => json({}),\n});"))).not.toEqual([]);
    expect(chains(`${ok}export const OPTIONS = async () => json({});\n`)).not.toEqual([]);
    expect(chains(`${ok}export { other as HEAD };\n`)).not.toEqual([]);
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
