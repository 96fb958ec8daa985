// The start script drops the server chunks Node's module cache holds once Turbopack's runtime
// has installed their factories (scripts/loaded-chunks.ts). Here a build of the same shape: a
// runtime that loads chunks by `require`, keeps the first factory of each module and never
// loads a chunk twice (as `[turbopack]_runtime.js` does), and routes whose chunks repeat the
// same shared module.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { releaseLoadedChunks } from "../../scripts/loaded-chunks";

const RUNTIME = `
const path = require("node:path");
const factories = new Map();
const instances = new Map();
const loaded = new Set();
module.exports = () => ({
  c(chunk) {
    if (loaded.has(chunk)) return;
    const modules = require(path.join(__dirname, "..", "..", chunk));
    for (let i = 0; i < modules.length; i += 2) if (!factories.has(modules[i])) factories.set(modules[i], modules[i + 1]);
    loaded.add(chunk);
  },
  m(id) {
    if (!instances.has(id)) instances.set(id, factories.get(id)());
    return instances.get(id);
  },
  loads: () => loaded.size,
});
`;

/** A chunk with the module every route shares (its source about 1 MB) and one of the route's own. */
function chunk(route: number): string {
  const shared = `function(){return{text:${JSON.stringify("x".repeat(1 << 20))}.slice(0,4)}}`;
  return `module.exports=[1,${shared},${100 + route},function(){return{route:${route}}}];`;
}

const root = mkdtempSync(path.join(os.tmpdir(), "floorline-chunks-"));
const server = path.join(root, "server");
const ROUTES = 6;
mkdirSync(path.join(server, "chunks"), { recursive: true });
writeFileSync(path.join(server, "chunks", "[turbopack]_runtime.js"), RUNTIME);
for (let route = 0; route < ROUTES; route++) {
  writeFileSync(path.join(server, "chunks", `route-${route}._.js`), chunk(route));
  mkdirSync(path.join(server, "app", `r${route}`), { recursive: true });
  writeFileSync(
    path.join(server, "app", `r${route}`, "route.js"),
    `const R=require("../../chunks/[turbopack]_runtime.js")();R.c("server/chunks/route-${route}._.js");module.exports={R,shared:R.m(1),own:R.m(${100 + route})};`,
  );
}
const require = createRequire(import.meta.url);
const cache = require.cache;
const entries = Array.from({ length: ROUTES }, (_, route) =>
  require(path.join(server, "app", `r${route}`, "route.js")),
);
const runtimeId = path.join(server, "chunks", "[turbopack]_runtime.js");
const chunkIds = Array.from({ length: ROUTES }, (_, route) => path.join(server, "chunks", `route-${route}._.js`));

afterAll(() => {
  for (const id of Object.keys(cache)) if (id.startsWith(root)) delete cache[id];
  rmSync(root, { recursive: true, force: true });
});

describe("releaseLoadedChunks", () => {
  it("drops the loaded chunks from Node's cache and keeps the runtime and the routes", async () => {
    // Each chunk's exports (and through them its source) are reachable from the cache alone.
    const exported = chunkIds.map((id) => new WeakRef(cache[id]?.exports as object));
    expect(chunkIds.every((id) => cache[id])).toBe(true);
    expect(cache[runtimeId]?.children.map((child) => child.id)).toEqual(chunkIds);

    expect(releaseLoadedChunks(server)).toBe(ROUTES);

    expect(chunkIds.filter((id) => cache[id])).toEqual([]);
    expect(cache[runtimeId]).toBeDefined();
    expect(cache[runtimeId]?.children).toEqual([]);
    for (let route = 0; route < ROUTES; route++) {
      expect(cache[path.join(server, "app", `r${route}`, "route.js")]).toBeDefined();
    }
    // A WeakRef holds its target until the job that made it ends: collect after it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    v8.setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
    // The copies no module was installed from are gone; the runtime keeps the one it uses.
    expect(exported.filter((ref) => ref.deref() === undefined).length).toBeGreaterThanOrEqual(ROUTES - 1);
  });

  it("leaves the modules working, and the runtime loads no chunk again", () => {
    const { R } = entries[0] as { R: { c(chunk: string): void; m(id: number): unknown; loads(): number } };
    R.c("server/chunks/route-3._.js");
    expect(cache[chunkIds[3] as string]).toBeUndefined();
    expect(R.loads()).toBe(ROUTES);
    expect(R.m(1)).toEqual({ text: "xxxx" });
    expect(R.m(103)).toEqual({ route: 3 });
  });

  it("has nothing to drop a second time, nor under another folder", () => {
    expect(releaseLoadedChunks(server)).toBe(0);
    expect(releaseLoadedChunks(path.join(root, "elsewhere", "server"))).toBe(0);
  });
});
