// `npm start`: builds when there is no current build, then serves the dashboard on
// HOST:PORT (127.0.0.1:3000 by default) and hands SIGTERM/SIGINT to the app, which closes
// the embedded database before exiting.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const distDir = process.env.NEXT_DIST_DIR || ".next";
const stamp = path.join(root, distDir, "floorline-source-stamp");
const SOURCES = [
  "app",
  "components",
  "db",
  "lib",
  "drizzle",
  "instrumentation.ts",
  "next.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];

function sourceStamp() {
  const hash = createHash("sha256");
  const visit = (p) => {
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

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const current = sourceStamp();
const built =
  existsSync(path.join(root, distDir, "BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === current;
if (!built) {
  console.log("[floorline] no current build: running next build");
  const result = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], { cwd: root, env, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stamp, current);
}

const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const server = spawn(path.join(root, "node_modules/.bin/next"), ["start", "--hostname", host, "--port", port], {
  cwd: root,
  env: { ...env, NEXT_MANUAL_SIG_HANDLE: "1" },
  stdio: "inherit",
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
