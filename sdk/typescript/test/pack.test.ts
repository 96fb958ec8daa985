// The tarball `npm pack` makes installs into an empty project with no TypeScript of its own
// and imports with plain node: the package ships its compiled dist/ and needs nothing else.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const pkg = path.join(import.meta.dirname, "..");
const work = mkdtempSync(path.join(tmpdir(), "floorline-sdk-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm pack, then install into an empty project", () => {
  // npm pack and an install of the real tarball: 26 s on an idle 2-core machine, 44 s on a loaded
  // one, 85 s and over 120 s in CI runs beside e2e and both integration stages.
  it("imports Floorline and guards a pass with plain node", () => {
    // The global setup has built dist/; --ignore-scripts keeps prepack from rebuilding it
    // under the other test files (prepack runs the same build).
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], {
        cwd: pkg,
        encoding: "utf8",
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    expect(files).toContain("dist/sdk/typescript/src/index.d.ts");
    expect(files).toContain("dist/lib/guard/guard.js");
    expect(files.some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toBe(false);

    const project = path.join(work, "agent");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "agent", private: true, type: "module" }));
    execFileSync(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", path.join(work, packed[0]?.filename ?? "")],
      {
        cwd: project,
        stdio: "pipe",
      },
    );
    writeFileSync(
      path.join(project, "main.js"),
      `import { Floorline, evaluatePass } from "@floorline/sdk";
const chain = new Floorline().chain("packed");
chain.recordPass("x ".repeat(500), "x ".repeat(450), { density: 0.9 });
const r = chain.recordPass("x ".repeat(450), "x ".repeat(400), { density: 0.9 });
console.log(JSON.stringify({ verdict: r.verdict, same: evaluatePass(r.receipt, chain.policy).manifest_digest === r.manifestDigest }));
`,
    );
    const out = execFileSync(process.execPath, ["main.js"], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ verdict: "SAFE_TO_COMPRESS", same: true });
  }, 300_000);
});
