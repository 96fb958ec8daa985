import { describe, expect, it, vi } from "vitest";
import { databaseTrouble, databaseTroubleCause, toErrorResponse } from "@/lib/errors";
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
    ["3D000", "unavailable"],
    ["28P01", "unavailable"],
    ["28000", "unavailable"],
    ["23505", undefined],
  ])("%s is %s", (code, trouble) => {
    expect(databaseTrouble({ cause: { code } })).toBe(trouble);
  });

  it("reads lock-table exhaustion from the hint when there is no code", () => {
    expect(databaseTrouble(new Error("out of shared memory; increase max_locks_per_transaction"))).toBe("busy");
  });

  it("names each cause with its fix, in one line", () => {
    expect(databaseTroubleCause({ code: "3D000" })).toMatch(/does not exist: create it/);
    expect(databaseTroubleCause({ cause: { code: "28P01" } })).toMatch(/refused the user or password/);
    expect(databaseTroubleCause({ code: "ECONNREFUSED" })).toMatch(/nothing accepts connections.*start PostgreSQL/);
    expect(databaseTroubleCause({ code: "ENOTFOUND" })).toMatch(/does not resolve/);
    expect(databaseTroubleCause({ code: "57P03" })).toMatch(/starting or shutting down/);
    expect(databaseTroubleCause(new Error("?"))).toMatch(/check that PostgreSQL runs/);
  });

  it("logs a database that stays down once a minute per cause, counting the requests between", () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    try {
      // A cause no other test logs, so the once-a-minute memory starts empty for it.
      const gone = { code: "3D000", stack: 'Error: database "nope" does not exist\n    at frame' };
      for (let i = 0; i < 30; i++) expect(toErrorResponse(gone).status).toBe(503);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string).msg).toMatch(
        /^database unavailable: the database named in DATABASE_URL does not exist/,
      );
      vi.advanceTimersByTime(61_000);
      toErrorResponse(gone);
      expect(lines).toHaveLength(2);
      const again = JSON.parse(lines[1] as string);
      expect(again.msg).toContain("(29 more since the last line)");
      // The error's fields (its stack) with the first line only.
      expect(again.err).toBeUndefined();
    } finally {
      spy.mockRestore();
      vi.useRealTimers();
    }
  });

  it("answers every kind with 503 and a Retry-After", () => {
    for (const code of ["57014", "40P01", "53200", "ECONNREFUSED", "3D000", "28P01"]) {
      const response = toErrorResponse({ code });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    }
  });
});
