// The README's endpoint table is written by hand; this keeps it to the route registry.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES, scopeOf } from "@/lib/http/registry";

const readme = readFileSync("README.md", "utf8");

describe("README endpoint table", () => {
  it("lists every route and method of the registry with its scope", () => {
    for (const [pattern, methods] of Object.entries(ROUTES)) {
      for (const method of Object.keys(methods)) {
        const row = readme.split("\n").find((line) => line.startsWith(`| \`${method} ${pattern}\` |`));
        expect(row, `${method} ${pattern} is missing from the README's endpoint table`).toBeDefined();
        expect(row).toContain(`| ${scopeOf(pattern as keyof typeof ROUTES, method)} |`);
      }
    }
  });
});
