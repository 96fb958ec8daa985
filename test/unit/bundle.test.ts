// The measurement threads load the measurement as one bundled module kept on disk
// (lib/bundle.mjs), and the server its start script (scripts/server.mjs): a kept bundle must
// never outlive a change to a file it was made from, or a server would run code that is no
// longer in its files; and the bundled code must see the paths and packages its files see.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { importBundled } from "@/lib/bundle.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "floorline");
// A folder of the repository's own (bundle.mjs takes entries relative to its root), removed after.
const FOLDER = `test/.bundle-${process.pid}`;
const NAME = `${FOLDER}/entry`.replace(/[^A-Za-z0-9]+/g, "-");

function write(file: string, text: string): void {
  mkdirSync(path.join(ROOT, FOLDER), { recursive: true });
  writeFileSync(path.join(ROOT, FOLDER, file), text);
}

const keptBundles = () => readdirSync(CACHE).filter((f) => f.startsWith(`${NAME}-`) && f.endsWith(".mjs"));

afterAll(() => {
  rmSync(path.join(ROOT, FOLDER), { recursive: true, force: true });
  for (const f of readdirSync(CACHE)) if (f.startsWith(NAME)) rmSync(path.join(CACHE, f), { force: true });
});

describe("importBundled", () => {
  it("bundles an entry with what it imports, and keeps the bundle while its files are unchanged", async () => {
    write("dep.ts", "export const value: number = 1;\n");
    write("entry.ts", 'import { value } from "./dep";\nexport const answer = () => value * 10;\n');
    const first = (await importBundled(`${FOLDER}/entry.ts`)) as { answer: () => number };
    expect(first.answer()).toBe(10);
    const [kept] = keptBundles();
    expect(kept).toBeDefined();
    const madeAt = statSync(path.join(CACHE, kept as string)).mtimeMs;

    const again = (await importBundled(`${FOLDER}/entry.ts`)) as { answer: () => number };
    expect(again.answer()).toBe(10);
    expect(keptBundles()).toEqual([kept]);
    expect(statSync(path.join(CACHE, kept as string)).mtimeMs).toBe(madeAt);
  });

  it("bundles again when a file the entry imports changes, and removes the bundle it replaces", async () => {
    write("dep.ts", "export const value: number = 1;\n");
    write("entry.ts", 'import { value } from "./dep";\nexport const answer = () => value * 10;\n');
    await importBundled(`${FOLDER}/entry.ts`);
    const [before] = keptBundles();

    write("dep.ts", "export const value: number = 2;\n");
    const changed = (await importBundled(`${FOLDER}/entry.ts`)) as { answer: () => number };
    expect(changed.answer()).toBe(20);
    const after = keptBundles();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
  });

  it("bundles again when a file it was made from is gone", async () => {
    write("dep.ts", "export const value: number = 3;\n");
    write("other.ts", "export const value: number = 4;\n");
    write("entry.ts", 'import { value } from "./dep";\nexport const answer = () => value;\n');
    expect(((await importBundled(`${FOLDER}/entry.ts`)) as { answer: () => number }).answer()).toBe(3);
    rmSync(path.join(ROOT, FOLDER, "dep.ts"));
    write("entry.ts", 'import { value } from "./other";\nexport const answer = () => value;\n');
    expect(((await importBundled(`${FOLDER}/entry.ts`)) as { answer: () => number }).answer()).toBe(4);
  });

  it("reads import.meta.url as the entry's and leaves packages as imports of the repository's", async () => {
    write(
      "entry.ts",
      [
        'import { z } from "zod";',
        'import { readFileSync } from "node:fs";',
        'import { ok } from "./dep";',
        "export const url = import.meta.url;",
        'export const sibling = readFileSync(new URL("./dep.ts", import.meta.url), "utf8");',
        "export const parse = (v: unknown) => z.number().parse(v);",
        "export { ok };",
        "",
      ].join("\n"),
    );
    write("dep.ts", "export const ok = () => true;\n");
    const bundled = (await importBundled(`${FOLDER}/entry.ts`)) as {
      url: string;
      sibling: string;
      parse: (v: unknown) => number;
      ok: () => boolean;
    };
    expect(bundled.url).toBe(pathToFileURL(path.join(ROOT, FOLDER, "entry.ts")).href);
    expect(bundled.sibling).toContain("export const ok");
    expect(bundled.parse(3)).toBe(3);
    expect(bundled.ok()).toBe(true);
    const [kept] = keptBundles();
    const text = readFileSync(path.join(CACHE, kept as string), "utf8");
    // zod is imported from where Node finds it from the repository, not copied in.
    expect(text).toContain(JSON.stringify(import.meta.resolve("zod")));
    expect(text).not.toContain("class ZodError");
    const record = JSON.parse(readFileSync(path.join(CACHE, `${NAME}.json`), "utf8")) as { packages: string[] };
    expect(record.packages).toEqual(["zod"]);
  });
});
