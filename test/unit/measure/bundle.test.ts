// The measurement threads load the measurement as one bundled module kept on disk
// (lib/measure/bundle.mjs): a kept bundle must never outlive a change to a file it was made
// from, or a server would measure with code that is no longer in its files.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importBundled } from "@/lib/measure/bundle.mjs";

const ROOT = path.resolve(import.meta.dirname, "../../..");
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
});
