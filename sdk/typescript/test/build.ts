// Vitest global setup: the tests run against the built package (dist/), as users get it.
import { execFileSync } from "node:child_process";
import path from "node:path";

export default function setup(): void {
  execFileSync(process.execPath, [path.join(import.meta.dirname, "../build.mjs")], { stdio: "inherit" });
}
