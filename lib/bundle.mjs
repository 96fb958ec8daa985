// TypeScript run outside Next.js's build, as one ES module: bundled by esbuild, kept on disk, and
// bundled again when a file it was made from changes. Two users:
// - the measurement pool's worker threads (lib/measure/worker-entry.mjs). Loading the
//   measurement through tsx instead took a new thread about 300 ms (tsx resolves and compiles
//   each import through a loader thread of its own), paid by every thread the pool starts: at a
//   server's first measurement and after every idle spell (pool.ts's idleTimeout). The kept
//   bundle loads in tens of milliseconds. docs/measurement.md, "Off the request thread".
// - the server (scripts/server.mjs runs scripts/start.ts), which then carries no loader thread.
// The repository's own files are bundled, and read `import.meta.url` as the entry's, so paths
// made from it stay right. Packages stay imports, of the files Node resolves them to from the
// repository, so a bundle kept outside it (the temporary folder) loads the same ones.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { threadId } from "node:worker_threads";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: `node${process.versions.node}`,
  metafile: true,
  write: false,
  logLevel: "silent",
};

/** esbuild's options for `entry`: the bundle stands where its entry stands. */
function optionsFor(entry) {
  return { ...OPTIONS, define: { "import.meta.url": JSON.stringify(pathToFileURL(path.join(ROOT, entry)).href) } };
}

/** A package (or a built-in) as Node resolves it from the repository: an absolute URL. */
const resolvePackage = (specifier) => import.meta.resolve(specifier);

/**
 * Leaves packages and built-ins as imports of what `resolvePackage` finds, and adds their
 * specifiers to `packages`; `@/` is the repository's own (tsconfig's paths).
 */
function packagesInto(packages) {
  return {
    name: "packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, ({ path: specifier }) => {
        if (specifier.startsWith("@/")) return undefined;
        const resolved = resolvePackage(specifier);
        if (!resolved.startsWith("node:")) packages.add(specifier);
        return { path: resolved, external: true };
      });
    },
  };
}

/**
 * The module `entry` (a path from the repository's root) exports, bundled. Bundled again unless
 * the kept bundle was made from the files as they are now (their bytes, not their times); two
 * threads that bundle at once write the same bytes, each renamed into place whole.
 */
export async function importBundled(entry) {
  const dir = cacheDir();
  const name = entry.replace(/\.[cm]?ts$/, "").replace(/[^A-Za-z0-9]+/g, "-");
  const kept = keptBundle(entry, dir, name);
  if (kept) {
    try {
      return await import(pathToFileURL(kept).href);
    } catch {
      // Removed meanwhile by a process that bundled newer files: bundled again below.
    }
  }
  return import(pathToFileURL(await bundle(entry, dir, name)).href);
}

/** Beside the packages, where other tools keep theirs; the system's temporary folder when that is read-only. */
function cacheDir() {
  const dirs = [path.join(ROOT, "node_modules", ".cache", "floorline"), path.join(os.tmpdir(), "floorline-bundles")];
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // Not writable: the next.
    }
  }
  throw new Error(`no writable folder for bundles (tried ${dirs.join(", ")})`);
}

/** esbuild's version, read without loading esbuild (as long again as loading the bundle): only a bundling needs it. */
let esbuildVersion = null;

/**
 * A digest of esbuild's version, the options, every input's path and bytes, and where each
 * package the bundle imports resolves to now (an install may move it); throws when an input
 * or a package is gone.
 */
function keyOf(entry, inputs, packages) {
  esbuildVersion ??= JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version;
  const hash = createHash("sha256").update(`${esbuildVersion}\n${JSON.stringify(optionsFor(entry))}\n`);
  for (const input of inputs) hash.update(`${input}\n`).update(readFileSync(path.join(ROOT, input)));
  for (const specifier of packages) hash.update(`${specifier} ${resolvePackage(specifier)}\n`);
  return hash.digest("hex").slice(0, 20);
}

/** The kept bundle's path when it was made from the files and packages as they are now, else null. */
function keptBundle(entry, dir, name) {
  try {
    const kept = JSON.parse(readFileSync(path.join(dir, `${name}.json`), "utf8"));
    const fresh = keyOf(entry, kept.inputs, kept.packages ?? []) === kept.key;
    return fresh ? path.join(dir, `${name}-${kept.key}.mjs`) : null;
  } catch {
    return null;
  }
}

function writeWhole(file, bytes) {
  const temporary = `${file}.${process.pid}-${threadId}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, file);
}

/** Bundlings under way in this thread: esbuild's service process is stopped when none is. */
let bundling = 0;

/** Bundles `entry`, keeps it with the list of its inputs, and removes the bundles of `name` it replaces. */
async function bundle(entry, dir, name) {
  // Plugins need esbuild's asynchronous API, whose service (a child process of about 40 MB)
  // would otherwise live as long as the server.
  const esbuild = require("esbuild");
  const imported = new Set();
  bundling++;
  const result = await esbuild
    .build({
      ...optionsFor(entry),
      plugins: [packagesInto(imported)],
      entryPoints: [entry],
      outfile: path.join(dir, `${name}.mjs`),
    })
    .finally(() => {
      if (--bundling === 0) esbuild.stop();
    });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const packages = [...imported].sort();
  const key = keyOf(entry, inputs, packages);
  const file = path.join(dir, `${name}-${key}.mjs`);
  writeWhole(file, result.outputFiles[0].contents);
  writeWhole(path.join(dir, `${name}.json`), JSON.stringify({ key, inputs, packages }));
  for (const other of readdirSync(dir)) {
    if (!other.startsWith(`${name}-`) || !other.endsWith(".mjs") || path.join(dir, other) === file) continue;
    try {
      unlinkSync(path.join(dir, other));
    } catch {
      // Removed by another thread already.
    }
  }
  return file;
}
