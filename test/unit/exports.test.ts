// Every name lib/ exports is used outside the file that declares it: an export nothing imports
// is surface to read and keep for nothing (unexport it, or delete it when nothing uses it).
// Names are matched as words in the repository's other sources, so a re-export, a test or
// the SDK using a name counts.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const sources = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && !f.startsWith("sdk/typescript/dist/"));

const EXPORTED =
  /^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type|enum|abstract class) +([A-Za-z_$][\w$]*)/gm;

describe("lib/ exports", () => {
  it("are each used by another file", () => {
    const texts = new Map(sources.map((f) => [f, readFileSync(f, "utf8")]));
    const words = new Map([...texts].map(([f, t]) => [f, new Set(t.match(/[A-Za-z_$][\w$]*/g) ?? [])]));
    const unused: string[] = [];
    for (const [file, text] of texts) {
      if (!file.startsWith("lib/")) continue;
      for (const [, name] of text.matchAll(EXPORTED)) {
        const elsewhere = [...words].some(([other, w]) => other !== file && w.has(name as string));
        if (!elsewhere) unused.push(`${file}: ${name}`);
      }
    }
    expect(unused).toEqual([]);
  });
});
