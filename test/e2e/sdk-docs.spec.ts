// docs/from-an-agent.md's two examples run as written against this run's server, with the
// SDK installed as an agent installs it (the package folder, built), and do what the page
// says: the receipts they print are the ones the server stored and judged the same way.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { blocksUnder, section } from "../support/markdown";

const run = promisify(execFile);
const DOCUMENTED = "http://127.0.0.1:3000";
const PAGE = "docs/from-an-agent.md";
let project = "";

test.beforeAll(() => {
  // `npm test` builds the SDK once for every stage (FLOORLINE_TEST_BUILT): building it again
  // here swapped dist/ while the integration stages beside e2e imported it.
  if (process.env.FLOORLINE_TEST_BUILT !== "1")
    execFileSync(process.execPath, [path.resolve("sdk/typescript/build.mjs")], { stdio: "inherit" });
  // An agent's project with the package installed from the checkout, as `npm install
  // <checkout>/sdk/typescript` links it.
  project = mkdtempSync(path.join(tmpdir(), "floorline-sdk-docs-"));
  mkdirSync(path.join(project, "node_modules/@floorline"), { recursive: true });
  symlinkSync(path.resolve("sdk/typescript"), path.join(project, "node_modules/@floorline/sdk"), "dir");
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "agent", private: true, type: "module" }));
});

test.afterAll(() => rmSync(project, { recursive: true, force: true }));

async function example(heading: string, baseURL: string): Promise<{ code: string; printed: string[]; warned: string }> {
  const blocks = blocksUnder(PAGE, heading).filter((b) => b.lang === "js");
  expect(blocks, `${heading}: one example`).toHaveLength(1);
  const code = (blocks[0]?.code ?? "").replaceAll(DOCUMENTED, baseURL);
  expect(code.trimEnd().split("\n").length, `${heading}: at most 15 lines`).toBeLessThanOrEqual(15);
  const file = path.join(project, `${heading.replace(/\W+/g, "-")}.mjs`);
  writeFileSync(file, code);
  // As in a user's shell: no key (access is off here), no colours forced by the test runner.
  const { FLOORLINE_API_KEY: _, FORCE_COLOR: __, ...inherited } = process.env;
  const env = { ...inherited, NO_COLOR: "1" };
  const { stdout, stderr } = await run(process.execPath, [file], { cwd: project, env, timeout: 60_000 });
  return { code, printed: stdout.trimEnd().split("\n"), warned: stderr };
}

type Stored = {
  passes: {
    pass_id: string;
    verdict: string;
    directive: string;
    semantic_density_score: number;
    current_content_hash: string;
  }[];
  boundaries: { pass_number: number; strategy: string; reason: string }[];
};
async function stored(request: APIRequestContext, chainId: string): Promise<Stored> {
  const response = await request.get(`/api/v1/chains/${chainId}`);
  expect(response.status()).toBe(200);
  return (await response.json()) as Stored;
}

test("the recordPass example prints the receipts the server stores, and stops at the breach", async ({
  baseURL,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const { printed } = await example("## Record each pass", baseURL);
  // A new chain on every run, named in each pass id.
  const chainId = /^(jobs-[0-9a-f]{8})\.p1 /.exec(printed[0] ?? "")?.[1];
  if (!chainId) throw new Error(`no chain id in ${printed[0]}`);
  const chain = await stored(request, chainId);
  expect(printed).toEqual(
    chain.passes.map((p) => `${p.pass_id} ${p.semantic_density_score} ${p.verdict} ${p.directive}`),
  );
  expect(printed.at(-1)).toMatch(/COLLAPSE_IMMINENT HALT: Density 0\.\d\d < 0\.50\.$/);
  // It says what it did at the halt, so the chain is guarded rather than left unanswered.
  expect(chain.boundaries).toEqual([
    expect.objectContaining({
      pass_number: chain.passes.length,
      strategy: "halt",
      reason: chain.passes.at(-1)?.directive,
    }),
  ]);
  // What the page shows it printing.
  const page = blocksUnder(PAGE, "## Record each pass").find((b) => b.lang === "");
  const shown = page?.code.trimEnd().split("\n") ?? [];
  expect(printed.map((line) => line.replaceAll(chainId, "<chain>"))).toEqual(
    shown.map((line) => line.replaceAll(/jobs-[0-9a-f]{8}/g, "<chain>")),
  );
  // Run as a user runs it again: a chain of its own, nothing refused.
  const again = await example("## Record each pass", baseURL);
  expect(again.warned).toBe("");
  expect(again.printed[0]).not.toContain(chainId);
});

test("the compressUntilFloor example halts where the guard says, sends its boundary, keeps the last safe output", async ({
  baseURL,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const { printed } = await example("## Compress until the floor", baseURL);
  const chainId = / of (jobs-[0-9a-f]{8})$/.exec(printed[0] ?? "")?.[1];
  if (!chainId) throw new Error(`no chain id in ${printed[0]}`);
  const chain = await stored(request, chainId);
  const last = chain.passes.at(-1);
  expect(printed[0]).toBe(`halt ${last?.directive} after ${chain.passes.length} passes of ${chainId}`);
  expect(chain.boundaries).toEqual([
    expect.objectContaining({ pass_number: chain.passes.length, strategy: "halt", reason: last?.directive }),
  ]);
  // The content to use is the output of the pass before the breach, as stored.
  const content = printed.slice(1).join("\n");
  expect(createHash("sha256").update(content).digest("hex")).toBe(chain.passes.at(-2)?.current_content_hash);
  // What the page says it prints.
  const said = /it prints `([^`]+)`/.exec(section(readFileSync(PAGE, "utf8"), "## Compress until the floor"))?.[1];
  expect((printed[0] ?? "").replace(chainId, "<chain>")).toBe(said?.replace(/jobs-[0-9a-f]{8}/, "<chain>"));
});
