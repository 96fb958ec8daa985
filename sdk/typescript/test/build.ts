// Vitest global setup: the tests run against the built package (dist/), as users get it.
import { execFileSync } from "node:child_process";
import path from "node:path";

export default function setup(): void {
  // `npm test` builds it once before the stages that use it (scripts/test.sh): building again
  // here would empty dist/ under the stages running beside this one.
  if (process.env.FLOORLINE_TEST_BUILT === "1") return;
  execFileSync(process.execPath, [path.join(import.meta.dirname, "../build.mjs")], { stdio: "inherit" });
}
