// The app's build, made only when the sources changed since the last one: `npm start` calls
// it before serving, and `npm test` once before the stages that start the app, so that no two
// of them build at the same time. Run alone (`tsx scripts/build.ts`) it builds when stale.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));

/** What the server bundle is made of: a change to any of these makes the build stale. */
const SOURCES = [
  "app",
  "components",
  "db",
  "lib",
  "demo",
  "sdk/typescript/src",
  "drizzle",
  "instrumentation.ts",
  "proxy.ts",
  "next.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];

function sourceStamp(root: string): string {
  const hash = createHash("sha256");
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(path.join(p, name));
    } else {
      hash.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const s of SOURCES) visit(path.join(root, s));
  return hash.digest("hex");
}

/**
 * Builds into `distDir` (NEXT_DIST_DIR, default `.next`) unless its build is of the current
 * sources; answers false when `next build` failed (its output went to this process's).
 */
export function ensureBuilt(options: { root?: string; distDir?: string; log?: (line: string) => void } = {}): boolean {
  const root = options.root ?? ROOT;
  const distDir = options.distDir ?? process.env.NEXT_DIST_DIR ?? ".next";
  const stamp = path.join(root, distDir, "floorline-source-stamp");
  const current = sourceStamp(root);
  const built =
    existsSync(path.join(root, distDir, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === current;
  if (built) return true;
  options.log?.("no current build: running next build");
  const result = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NEXT_DIST_DIR: distDir },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) return false;
  writeFileSync(stamp, current);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(ensureBuilt({ log: (line) => console.log(line) }) ? 0 : 1);
}
