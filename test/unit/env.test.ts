// The environment module parses every variable docs/configuration.md documents, and no other;
// a value that does not parse counts as unset.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_SCHEMA, env, envInvalid, envRecord } from "@/lib/env";

const documented = () => {
  const page = readFileSync(path.join(process.cwd(), "docs/configuration.md"), "utf8");
  const table = page.slice(page.indexOf("## Variables"), page.indexOf("\n## ", page.indexOf("## Variables") + 1));
  return [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
};

describe("the environment", () => {
  it("parses exactly the variables docs/configuration.md documents", () => {
    expect(documented()).toEqual(Object.keys(ENV_SCHEMA).sort());
  });

  it("reads whole numbers, fractions and flags, and takes what does not parse as unset", () => {
    expect(env("FLOORLINE_STATEMENT_TIMEOUT_MS", { FLOORLINE_STATEMENT_TIMEOUT_MS: " 2500 " })).toBe(2500);
    for (const bad of ["0", "-1", "1.5", "soon", ""]) {
      expect(env("FLOORLINE_STATEMENT_TIMEOUT_MS", { FLOORLINE_STATEMENT_TIMEOUT_MS: bad })).toBeUndefined();
    }
    expect(env("FLOORLINE_RETENTION_DAYS", { FLOORLINE_RETENTION_DAYS: "0.5" })).toBe(0.5);
    expect(env("FLOORLINE_RETENTION_DAYS", { FLOORLINE_RETENTION_DAYS: "0" })).toBeUndefined();
    expect(env("FLOORLINE_DEMO", { FLOORLINE_DEMO: "yes" })).toBeUndefined();
    expect(env("LOG_LEVEL", { LOG_LEVEL: "DEBUG" })).toBe("debug");
    expect(env("PORT", { PORT: "65536" })).toBeUndefined();
    expect(env("DATABASE_URL", { DATABASE_URL: "" })).toBeUndefined();
  });

  it("says which set values do not parse, and hands the owners of the others their raw text", () => {
    expect(envInvalid("FLOORLINE_RETENTION_DAYS", { FLOORLINE_RETENTION_DAYS: "soon" })).toBe(true);
    expect(envInvalid("FLOORLINE_RETENTION_DAYS", {})).toBe(false);
    expect(envRecord({ FLOORLINE_AUTH: " On ", UNRELATED: "x" })).toEqual({ FLOORLINE_AUTH: " On " });
  });
});
