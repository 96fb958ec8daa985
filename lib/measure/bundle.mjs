// The measurement's TypeScript as one ES module, for the pool's worker threads (worker-entry.mjs):
// bundled by esbuild, kept on disk, and bundled again when a file it was made from changes.
// Loading it through tsx instead took a new thread about 300 ms (tsx resolves and compiles each
// import through a loader thread of its own), paid by every thread the pool starts: at a
// server's first measurement and after every idle spell (pool.ts's idleTimeout). The kept
// bundle loads in tens of milliseconds. docs/measurement.md, "Off the request thread".
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { threadId } from "node:worker_threads";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
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

/**
 * The module `entry` (a path from the repository's root) exports, bundled. Bundled again unless
 * the kept bundle was made from the files as they are now (their bytes, not their times); two
 * threads that bundle at once write the same bytes, each renamed into place whole.
 */
export async function importBundled(entry) {
  const dir = cacheDir();
  const name = entry.replace(/\.[cm]?ts$/, "").replace(/[^A-Za-z0-9]+/g, "-");
  const kept = keptBundle(dir, name);
  if (kept) {
    try {
      return await import(pathToFileURL(kept).href);
    } catch {
      // Removed meanwhile by a process that bundled newer files: bundled again below.
    }
  }
  return import(pathToFileURL(bundle(entry, dir, name)).href);
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
  throw new Error(`no writable folder for the measurement's bundle (tried ${dirs.join(", ")})`);
}

/** esbuild's version, read without loading esbuild (as long again as loading the bundle): only a bundling needs it. */
let esbuildVersion = null;

/** A digest of esbuild's version, its options and every input's path and bytes; throws when an input is gone. */
function keyOf(inputs) {
  esbuildVersion ??= JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version;
  const hash = createHash("sha256").update(`${esbuildVersion}\n${JSON.stringify(OPTIONS)}\n`);
  for (const input of inputs) hash.update(`${input}\n`).update(readFileSync(path.join(ROOT, input)));
  return hash.digest("hex").slice(0, 20);
}

/** The kept bundle's path when it was made from the files as they are now, else null. */
function keptBundle(dir, name) {
  try {
    const kept = JSON.parse(readFileSync(path.join(dir, `${name}.json`), "utf8"));
    return keyOf(kept.inputs) === kept.key ? path.join(dir, `${name}-${kept.key}.mjs`) : null;
  } catch {
    return null;
  }
}

function writeWhole(file, bytes) {
  const temporary = `${file}.${process.pid}-${threadId}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, file);
}

/** Bundles `entry`, keeps it with the list of its inputs, and removes the bundles of `name` it replaces. */
function bundle(entry, dir, name) {
  const { buildSync } = require("esbuild");
  const result = buildSync({ ...OPTIONS, entryPoints: [entry], outfile: path.join(dir, `${name}.mjs`) });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const key = keyOf(inputs);
  const file = path.join(dir, `${name}-${key}.mjs`);
  writeWhole(file, result.outputFiles[0].contents);
  writeWhole(path.join(dir, `${name}.json`), JSON.stringify({ key, inputs }));
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
