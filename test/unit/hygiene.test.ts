// What a reader of the sources may count on (issue "Fast to change", hygiene): a file over 400
// lines says at its top why it is long, and no comment sends the reader outside the repository
// (to the planning folder beside the clone, which a clone does not have).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const SOURCE =
  /^(app|components|db|lib|scripts|demo|sdk\/typescript\/src|sdk\/python\/src)\/.*\.(ts|tsx|mjs|py|css|sh)$/;
const TEST = /^(test|sdk\/typescript\/test|sdk\/python\/tests)\/.*\.(ts|tsx|mjs|py)$/;
const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { encoding: "utf8" }).split("\n");
// Generated code (the OTLP protobuf bindings) and fixtures are not read as code.
const sources = files.filter((f) => SOURCE.test(f) && !f.endsWith(".d.ts") && !f.startsWith("lib/otlp/proto/"));
const tests = files.filter((f) => TEST.test(f) && !f.startsWith("test/fixtures/"));

const LONG = 400;
/** Where a long file says why: one of these phrases, in its first lines (after a `"use client"`). */
const SAYS_WHY = /longer than most|long because|over 400 lines/i;
const HEAD_LINES = 14;

describe("source files", () => {
  it(`over ${LONG} lines, tests included, say why at their top`, () => {
    const silent = [...sources, ...tests].filter((file) => {
      const lines = readFileSync(file, "utf8").replace(/\n$/, "").split("\n");
      return lines.length > LONG && !SAYS_WHY.test(lines.slice(0, HEAD_LINES).join("\n"));
    });
    expect(silent).toEqual([]);
  });

  it("cite nothing outside the repository", () => {
    const outside =
      /(?:\.\.\/)?shared\/(?:API|STYLE|STACK)\.md|\.\.\/shared\b|shared\/(?:reference|vectors|measurement)\//;
    const citing = sources.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (outside.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(citing).toEqual([]);
  });
});
