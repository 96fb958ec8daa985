import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { METHODS, ROUTES, scopeOf } from "@/lib/http/registry";
import { doc, type Json, validatorFor } from "../support/openapi";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { CHAIN_STATUS_FILTERS, statusFilterSchema } from "@/lib/schemas/chains";
import { INTEGRITY_KINDS } from "@/lib/chains/integrity";

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with both auth schemes and the error body", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["bearerAuth", "sessionCookie"]);
    expect(doc.components.schemas.Error.properties.error.required).toEqual(["code", "message"]);
  });

  it("has every route and method of the registry, and nothing else", () => {
    const expected = Object.entries(ROUTES).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m} ${p}`));
    const actual = Object.entries(doc.paths as Json).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(actual.sort()).toEqual(expected.sort());
  });

  it("documents the status filter as the server reads it (a comma list, spaces trimmed)", () => {
    const status = (doc.paths["/api/v1/chains"].get.parameters as Json[]).find((p) => p.name === "status");
    const pattern = new RegExp(status?.schema?.pattern ?? "^$");
    for (const ok of ["collapsed", "collapsed,client_mismatch", "collapsed, client_mismatch", "healthy "]) {
      expect(pattern.test(ok), ok).toBe(true);
      expect(statusFilterSchema.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["collapsedd", "collapsed,bogus", "", ","]) {
      expect(pattern.test(bad), bad).toBe(false);
      expect(statusFilterSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("states each operation's scope and security as the registry does", () => {
    for (const [pattern, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const scope = scopeOf(pattern as keyof typeof ROUTES, method);
        expect(op["x-floorline-scope"], `${method} ${pattern}`).toBe(scope);
        expect(op.security, `${method} ${pattern}`).toEqual(
          scope === "public" ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
        );
        if (scope !== "public") expect(Object.keys(op.responses)).toContain("401");
        const errors = Object.entries(op.responses as Json).filter(([status]) => Number(status) >= 400);
        expect(errors.length, `${method} ${pattern}`).toBeGreaterThan(0);
        // Headroom's endpoints answer their own client errors as `{"detail": ...}`; refusals before
        // the handler (401, 403) and server errors stay the API's.
        const headroom = (op.tags as string[]).includes("Headroom");
        for (const [status, response] of errors) {
          const ours = !headroom || status === "401" || status === "403" || Number(status) >= 500;
          expect(response.content["application/json"].schema, `${method} ${pattern} ${status}`).toEqual({
            $ref: `#/components/schemas/${ours ? "Error" : "HeadroomError"}`,
          });
        }
      }
    }
    expect(METHODS).toContain("GET");
  });

  it("takes its request schemas from the zod schemas the handlers validate with", () => {
    const body = doc.paths["/api/v1/passes"].post.requestBody.content["application/json"].schema;
    const validate = validatorFor(body);
    const receipt = {
      chain_id: "c",
      pass_id: "p",
      pass_number: 1,
      current_content_hash: "",
      current_size_bytes: 10,
      is_parseable: true,
      schema_valid: true,
      semantic_density_score: 0.5,
    };
    expect(passReceiptSchema.safeParse(receipt).success).toBe(true);
    expect(validate(receipt)).toBe(true);
    expect(validate({ receipts: [receipt, receipt] })).toBe(true);
    expect(validate({ ...receipt, semantic_density_score: 2 })).toBe(false);
    expect(validate({ ...receipt, content_class: "no spaces allowed" })).toBe(false);
    const { chain_id: _, ...withoutChain } = receipt;
    expect(validate(withoutChain)).toBe(false);
  });

  it("describes query parameters one by one", () => {
    const params = doc.paths["/api/v1/chains"].get.parameters as Json[];
    const names = params.filter((p) => p.in === "query").map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["status", "content_class", "sort", "cursor", "limit"]));
    // Every status filter, several at once, and nothing else.
    const status = params.find((p) => p.name === "status") as Json;
    for (const value of CHAIN_STATUS_FILTERS) expect(status.description).toContain(value);
    const pattern = new RegExp(status.schema.pattern);
    expect(pattern.test("collapsed")).toBe(true);
    expect(pattern.test("continued_after_halt,restore_not_honoured")).toBe(true);
    expect(pattern.test("collapsed,bogus")).toBe(false);
    expect(statusFilterSchema.safeParse("collapsed,bogus").success).toBe(false);
    const exportParams = (doc.paths["/api/v1/exports/chains"].get.parameters as Json[]).map((p) => p.name);
    expect(exportParams).toEqual(expect.arrayContaining(["status", "range", "format"]));
    expect(Object.keys(doc.paths["/api/v1/chains"].get.responses)).toContain("422");
    const chain = doc.paths["/api/v1/chains/{chain_id}"].get.parameters as Json[];
    expect(chain).toEqual([{ name: "chain_id", in: "path", required: true, schema: { type: "string" } }]);
  });

  it("names every integrity kind and a refused node's content", () => {
    expect(doc.components.schemas.IntegrityFinding.properties.kind.enum.slice().sort()).toEqual(
      [...INTEGRITY_KINDS].sort(),
    );
    expect(Object.keys(doc.components.schemas.TraceRejection.properties)).toEqual(
      expect.arrayContaining(["node_type", "content", "content_bytes", "content_truncated", "reason"]),
    );
  });

  it("lints clean with redocly, offline", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "floorline-openapi-"));
    const file = path.join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const redocly = [
      path.join(process.cwd(), "node_modules/.bin/redocly"),
      "lint",
      file,
      "--config",
      path.join(process.cwd(), "redocly.yaml"),
      "--format",
      "stylish",
    ];
    // In a network namespace of its own where the machine allows one, so a lint that
    // reached for the network would fail here rather than pass by luck.
    const isolated = spawnSync("unshare", ["-rn", "true"]).status === 0;
    const [command = "", ...args] = isolated ? ["unshare", "-rn", ...redocly] : redocly;
    const result = spawnSync(command, args, {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    });
    const output = result.stdout + result.stderr;
    expect(result.status, output).toBe(0);
    expect(output).toContain("Your API description is valid");
    expect(output).not.toMatch(/You have \d+ (warning|error)/);
    expect(output).not.toMatch(/^\s*\d+:\d+\s+(warning|error)\s/m);
  }, 120_000);
});
