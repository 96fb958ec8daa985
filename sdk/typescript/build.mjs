// Compiles the SDK with the repository's TypeScript compiler: src/ and the lib/ modules it
// shares with the server (the guard, the trace compressor, the markers, the measurement),
// so the package carries one implementation, compiled, never a copy kept by hand.
// The shared modules import without file extensions (the app's bundler resolves them);
// Node's ESM loader does not, so the emitted specifiers are completed here.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const tsc = path.join(here, "../../node_modules/typescript/bin/tsc");

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']*)\2/g;

function complete(file, specifier) {
  const target = path.resolve(path.dirname(file), specifier);
  if (/\.(m?js|json)$/.test(specifier) && existsSync(target)) return specifier;
  if (existsSync(`${target}.js`)) return `${specifier}.js`;
  if (existsSync(path.join(target, "index.js"))) return `${specifier}/index.js`;
  throw new Error(`${path.relative(here, file)}: cannot resolve ${specifier}`);
}

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) walk(file);
    else if (/\.(js|d\.ts)$/.test(name)) {
      const text = readFileSync(file, "utf8");
      const fixed = text.replace(SPECIFIER, (_, lead, quote, spec) => `${lead}${quote}${complete(file, spec)}${quote}`);
      if (fixed !== text) writeFileSync(file, fixed);
    }
  }
}

// Compiled beside dist/ and swapped in only when complete: a compile error leaves the last good
// build in place for whatever else uses it meanwhile (tests, another checkout's install).
// A build killed half-way leaves its folder behind: the folders of builds no longer running go.
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}
for (const name of readdirSync(here)) {
  const pid = Number(/^dist\.(?:building|old)-(\d+)$/.exec(name)?.[1]);
  if (pid && !running(pid)) rmSync(path.join(here, name), { recursive: true, force: true });
}
const next = path.join(here, `dist.building-${process.pid}`);
try {
  execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json"), "--outDir", next], { stdio: "inherit" });
  walk(next);
} catch (error) {
  rmSync(next, { recursive: true, force: true });
  throw error;
}
// Two renames, then the old build's removal: dist/ is missing for the moment between the
// renames only, not for the whole removal (a test importing it meanwhile found it gone).
const old = path.join(here, `dist.old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
