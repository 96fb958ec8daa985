// The README and the pages under docs/ link to each other and to files of the repository: a
// page renamed or a heading reworded must not leave a reader at a dead link.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, prose } from "../support/markdown";

const root = process.cwd();

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

const files = [path.join(root, "README.md"), ...markdownFiles(path.join(root, "docs"))];

/** Every `[text](target)` and `![alt](target)` outside code, with its line. */
function links(file: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  prose(readFileSync(file, "utf8"))
    .split("\n")
    .forEach((text, i) => {
      for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        found.push({ target: m[1] ?? "", line: i + 1 });
      }
    });
  return found;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe("links in README.md and docs/", () => {
  it("finds the pages and their links", () => {
    expect(files.length).toBeGreaterThan(5);
    expect(links(path.join(root, "README.md")).length).toBeGreaterThan(10);
  });

  for (const file of files) {
    const name = path.relative(root, file);
    it(`${name}: every relative link points at a file of the repository, and every anchor at a heading`, () => {
      const problems: string[] = [];
      for (const { target, line } of links(file)) {
        if (isExternal(target)) continue;
        const [filePart = "", anchor] = target.split("#", 2);
        const resolved = filePart ? path.resolve(path.dirname(file), decodeURIComponent(filePart)) : file;
        const where = `${name}:${line} → ${target}`;
        if (!resolved.startsWith(root + path.sep) && resolved !== root) {
          problems.push(`${where} leaves the repository`);
          continue;
        }
        if (!existsSync(resolved)) {
          problems.push(`${where}: no such file`);
          continue;
        }
        if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md")) {
          if (!anchors(readFileSync(resolved, "utf8")).has(anchor)) problems.push(`${where}: no such heading`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it("sends no reader to the contract kept outside the repository", () => {
    for (const file of files)
      expect(readFileSync(file, "utf8"), path.relative(root, file)).not.toMatch(/shared\/API\.md/);
  });

  it("keeps the README short: what a newcomer needs first, the rest in docs/", () => {
    const lines = readFileSync(path.join(root, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
