import { describe, expect, it } from "vitest";
import { databaseTrouble, toErrorResponse } from "@/lib/errors";
import { errorFields } from "@/lib/observability/error-fields";

describe("errors as log fields", () => {
  it("keep the statement, code and message of a failed query but none of its parameters", () => {
    const original = "x".repeat(1024 * 1024);
    const driverError = Object.assign(new Error(`value too long: ${original}`), {
      code: "22001",
      parameters: [original],
      detail: `Failing row contains (${original}).`,
    });
    const error = new Error(`Failed query: insert into originals (hash, body) values ($1, $2)\nparams: h,${original}`, {
      cause: driverError,
    });
    const fields = errorFields(error);
    const text = JSON.stringify(fields);
    expect(text.length).toBeLessThan(4_000);
    expect(text).not.toContain(
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    );
    expect(fields.message).toBe("Failed query");
    expect(fields.query).toBe("insert into originals (hash, body) values ($1, $2)");
    expect(fields.causes?.[0]?.code).toBe("22001");
  });

  it("masks connection-string passwords and the app's own secrets in what it keeps", () => {
    const key = `fl_0123456789abcdef_${"k".repeat(43)}`;
    const secret = `whsec_${"w".repeat(43)}`;
    const error = new Error(`could not connect to postgres://floorline:hunter2@db.internal:5432/app with ${key}`, {
      cause: Object.assign(new Error(`signing with ${secret} failed`), { query: "select 'postgresql://u:p4ss@h/db'" }),
    });
    const text = JSON.stringify(errorFields(error));
    for (const leak of ["hunter2", "p4ss", "kkkkkkkk", "wwwwwwww"]) expect(text).not.toContain(leak);
    expect(text).toContain("postgres://floorline:***@db.internal:5432/app");
    expect(text).toContain("fl_***");
    expect(text).toContain("whsec_***");
  });

  it("logs a failed query answered 500 without its parameters", () => {
    const secret = "s3cr3t-original-content";
    const lines: string[] = [];
    const saved = console.error;
    const key = Symbol.for("floorline.logger");
    const logger = (globalThis as Record<symbol, unknown>)[key];
    delete (globalThis as Record<symbol, unknown>)[key];
    console.error = (line: string) => lines.push(line);
    try {
      const response = toErrorResponse(new Error(`Failed query: select $1\nparams: ${secret}`));
      expect(response.status).toBe(500);
    } finally {
      console.error = saved;
      if (logger) (globalThis as Record<symbol, unknown>)[key] = logger;
    }
    expect(lines.join("\n")).toContain("select $1");
    expect(lines.join("\n")).not.toContain(secret);
  });
});

describe("database trouble", () => {
  it.each([
    ["57014", "busy"],
    ["40P01", "busy"],
    ["40001", "busy"],
    ["53200", "busy"],
    ["53300", "busy"],
    ["DB_ACQUIRE_TIMEOUT", "busy"],
    ["08006", "unavailable"],
    ["57P01", "unavailable"],
    ["ECONNREFUSED", "unavailable"],
    ["CONNECTION_CLOSED", "unavailable"],
    ["DATA_FOLDER_LOCKED", "unavailable"],
    ["23505", undefined],
  ])("%s is %s", (code, trouble) => {
    expect(databaseTrouble({ cause: { code } })).toBe(trouble);
  });

  it("reads lock-table exhaustion from the hint when there is no code", () => {
    expect(databaseTrouble(new Error("out of shared memory; increase max_locks_per_transaction"))).toBe("busy");
  });

  it("answers every kind with 503 and a Retry-After", () => {
    for (const code of ["57014", "40P01", "53200", "ECONNREFUSED"]) {
      const response = toErrorResponse({ code });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    }
  });
});
