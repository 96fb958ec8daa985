// The README's API examples (curl, TypeScript fetch, Python urllib) run as written against the
// demo data: each block is taken from the README itself, pointed at this test's server, run with
// the tool its first line names, and must exit 0 and print what the demo chain holds.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

const readme = readFileSync("README.md", "utf8");

/** The fenced blocks after the line that promises they run as written. */
function examples(): { lang: string; code: string }[] {
  const start = readme.indexOf("Each runs as written against the demo data");
  if (start < 0) throw new Error("the README no longer has its runnable examples");
  const blocks: { lang: string; code: string }[] = [];
  const fence = /^```(\w+)\n([\s\S]*?)^```$/gm;
  fence.lastIndex = start;
  for (let m = fence.exec(readme); m && blocks.length < 3; m = fence.exec(readme)) {
    blocks.push({ lang: m[1] ?? "", code: m[2] ?? "" });
  }
  return blocks;
}

test("the README's curl, TypeScript and Python examples run against the demo data", async ({ baseURL, request }) => {
  if (!baseURL) throw new Error("no baseURL");
  const chain = (await (await request.get("/api/v1/chains/demo-semantic-void")).json()) as {
    passes: unknown[];
    collapse_point: { pass_number: number } | null;
  };
  expect(chain.collapse_point).not.toBeNull();
  const blocks = examples();
  expect(blocks.map((b) => b.lang)).toEqual(["sh", "ts", "python"]);
  const dir = mkdtempSync(path.join(tmpdir(), "floorline-readme-"));
  // As in a user's shell: no key (auth is off here) and no colours forced by the test runner.
  const env = { ...process.env, FLOORLINE_KEY: "", FORCE_COLOR: "0", NO_COLOR: "1" };
  for (const { lang, code } of blocks) {
    const pointed = code.replaceAll("http://127.0.0.1:3000", baseURL);
    let out: string;
    if (lang === "sh") {
      out = execFileSync("bash", ["-euo", "pipefail", "-c", pointed], { env, encoding: "utf8" });
    } else if (lang === "ts") {
      const file = path.join(dir, "collapse.mts");
      writeFileSync(file, pointed);
      out = execFileSync(path.resolve("node_modules/.bin/tsx"), [file], { env, encoding: "utf8" });
    } else {
      const file = path.join(dir, "collapse.py");
      writeFileSync(file, pointed);
      out = execFileSync("python3", [file], { env, encoding: "utf8" });
    }
    // Every example prints the demo chain's collapse point; the TypeScript and Python ones also
    // its number of passes.
    expect(out, `${lang} example printed:\n${out}`).toMatch(
      new RegExp(`pass_number'?:? ${chain.collapse_point?.pass_number}\\b`),
    );
    if (lang !== "sh") expect(out).toContain(`${chain.passes.length} passes`);
  }
});
