// Named to run after overview and recommendation: its examples add collapsing summary
// chains to the shared e2e server, which those specs count on being the demo's alone.
// The examples of README.md and docs/ run as written against the built app: each block is taken
// from the page that shows it (the fenced blocks under a named heading), pointed at this test's
// server, run with the tool its language names, and must do what the page says it does.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { blocksUnder, type FencedBlock } from "../support/markdown";

const DOCUMENTED = "http://127.0.0.1:3000";
// As in a user's shell: no key (auth is off here) and no colours forced by the test runner.
const env = { ...process.env, FLOORLINE_KEY: "", FORCE_COLOR: "0", NO_COLOR: "1" };
const tsx = path.resolve("node_modules/.bin/tsx");

/** Runs one block pointed at the test server and returns what it printed. */
function run(block: FencedBlock, baseURL: string, dir: string, extraEnv: Record<string, string> = {}): string {
  const code = block.code.replaceAll(DOCUMENTED, baseURL);
  const options = { env: { ...env, ...extraEnv }, encoding: "utf8" as const };
  if (block.lang === "sh") return execFileSync("bash", ["-euo", "pipefail", "-c", code], options);
  const file = path.join(dir, block.lang === "ts" ? "example.mts" : "example.py");
  writeFileSync(file, code);
  return execFileSync(block.lang === "ts" ? tsx : "python3", [file], options);
}

interface ChainAnswer {
  passes: { pass_id: string; verdict: string; directive: string }[];
  boundaries: { pass_number: number; strategy: string }[];
  collapse_point: { pass_number: number } | null;
  service_name?: string | null;
}

async function chain(request: APIRequestContext, id: string): Promise<ChainAnswer> {
  const response = await request.get(`/api/v1/chains/${id}`);
  expect(response.status(), `GET /api/v1/chains/${id}`).toBe(200);
  return (await response.json()) as ChainAnswer;
}

test("README: the first receipt, by curl and by Python, is stored and judged", async ({ baseURL, request }) => {
  if (!baseURL) throw new Error("no baseURL");
  const blocks = blocksUnder("README.md", "## Send a first receipt");
  expect(blocks.map((b) => b.lang)).toEqual(["sh", "python"]);
  const [curl, python] = blocks as [FencedBlock, FencedBlock];
  const dir = mkdtempSync(path.join(tmpdir(), "floorline-readme-"));
  try {
    const answer = JSON.parse(run(curl, baseURL, dir)) as { chain_id: string; pass_id: string; verdict: string };
    const printed = run(python, baseURL, dir).trim();
    const stored = await chain(request, answer.chain_id);
    const [first, second] = stored.passes;
    // The curl answer is the server's verdict on the pass it stored; the snippet prints the
    // verdict and directive of the second pass, which must be the ones the chain now shows.
    expect(first?.pass_id).toBe(answer.pass_id);
    expect(first?.verdict).toBe(answer.verdict);
    expect(second, "the Python snippet stored no second pass").toBeDefined();
    expect(printed).toBe(`${second?.verdict} ${second?.directive}`);
    // The README's snippet drops under its class's floor: the chain's collapse point.
    expect(stored.collapse_point?.pass_number).toBe(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/api.md: the curl, TypeScript and Python examples run against the demo data", async ({
  baseURL,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const demo = await chain(request, "demo-semantic-void");
  expect(demo.collapse_point).not.toBeNull();
  const blocks = blocksUnder("docs/api.md", "## Examples that run as written");
  expect(blocks.map((b) => b.lang)).toEqual(["sh", "ts", "python"]);
  const dir = mkdtempSync(path.join(tmpdir(), "floorline-docs-api-"));
  try {
    for (const block of blocks) {
      const out = run(block, baseURL, dir);
      // Every example prints the demo chain's collapse point; the TypeScript and Python ones
      // also its number of passes.
      expect(out, `${block.lang} example printed:\n${out}`).toMatch(
        new RegExp(`pass_number'?:? ${demo.collapse_point?.pass_number}\\b`),
      );
      if (block.lang !== "sh") expect(out).toContain(`${demo.passes.length} passes`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/otlp.md: the OpenTelemetry agent's spans become the chain the page describes", async ({
  baseURL,
  request,
}) => {
  if (!baseURL) throw new Error("no baseURL");
  const blocks = blocksUnder("docs/otlp.md", "## An agent with the OpenTelemetry SDK");
  expect(blocks.map((b) => b.lang)).toEqual(["sh", "ts"]);
  const [shell, agent] = blocks as [FencedBlock, FencedBlock];
  // The packages the page installs are the project's dev dependencies, so the agent runs from
  // inside the repository (to resolve them) with the environment the page's command sets.
  const command = shell.code.split("\n").find((line) => line.includes("npx tsx agent.mts"));
  if (!command) throw new Error("docs/otlp.md no longer runs agent.mts");
  const extraEnv = Object.fromEntries(
    [...command.replaceAll(DOCUMENTED, baseURL).matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
  expect(Object.keys(extraEnv)).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
  mkdirSync(".floorline", { recursive: true });
  const dir = mkdtempSync(path.resolve(".floorline", "docs-otlp-"));
  try {
    run(agent, baseURL, dir, extraEnv);
    const stored = await chain(request, "run-42");
    expect(stored.passes.map((p) => p.verdict)).toEqual([
      "NO_RECURSIVE_COMPRESSION",
      "SAFE_TO_COMPRESS",
      "COLLAPSE_IMMINENT",
    ]);
    expect(stored.boundaries.map((b) => [b.pass_number, b.strategy])).toEqual([[3, "halt"]]);
    expect(stored.service_name).toBe("summarizer-agent");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
