import { describe, expect, it } from "vitest";
import { GET as listPolicies } from "@/app/api/v1/policies/route";
import { GET as getPolicy, PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, countRows, expectError, issuePaths } from "./api-helpers";

setUpTestDatabase();

const put = (contentClass: string, body: unknown) =>
  call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, { method: "PUT", body }),
    params({ content_class: contentClass }),
  );
const get = (contentClass: string) =>
  call(getPolicy, jsonRequest(`/api/v1/policies/${contentClass}`), params({ content_class: contentClass }));

const floorA = {
  min_size_bytes: 512,
  min_semantic_density: 0.4,
  max_pass_number: 6,
  required_fields: ["a.b", "c"],
  description: "JSON tool output",
};
const floorB = { ...floorA, min_semantic_density: 0.45 };

describe("policies", () => {
  it("a class with no policy answers the conservative default as version 0, and writes nothing", async () => {
    const answer = await get("never-seen");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      content_class: "never-seen",
      version: 0,
      ...CONSERVATIVE_DEFAULT_POLICY,
      versions: [],
    });
    expect((await countRows()).policies).toBe(0);
  });

  it("lists the default policy even when none is stored", async () => {
    const answer = await call(listPolicies, jsonRequest("/api/v1/policies"));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      items: [],
      next_cursor: null,
      default_policy: { ...CONSERVATIVE_DEFAULT_POLICY, version: 0 },
    });
  });

  it("PUT creates version 1 with the fields at the top level", async () => {
    const answer = await put("json", floorA);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ content_class: "json", version: 1, ...floorA });
    expect(typeof answer.body.created_at).toBe("string");
    expect((await countRows()).policies).toBe(1);
  });

  it("an identical PUT writes nothing and returns the version in force", async () => {
    const answer = await put("json", floorA);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, ...floorA });
    expect((await countRows()).policies).toBe(1);
  });

  it("every change makes a new version; old versions stay readable", async () => {
    expect((await put("json", floorB)).body.version).toBe(2);
    expect((await put("json", { ...floorB, description: null })).body.version).toBe(3);
    // Going back to an earlier floor is a change too.
    expect((await put("json", floorA)).body.version).toBe(4);
    expect((await put("json", { ...floorA, required_fields: ["c", "a.b"] })).body.version).toBe(5);
    expect((await countRows()).policies).toBe(5);

    const answer = await get("json");
    expect(answer.body).toMatchObject({
      content_class: "json",
      version: 5,
      min_semantic_density: 0.4,
      required_fields: ["c", "a.b"],
    });
    expect(answer.body.versions.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1]);
    expect(answer.body.versions.at(-1)).toMatchObject({ version: 1, ...floorA });
    expect(answer.body.versions[3]).toMatchObject({
      version: 2,
      min_semantic_density: 0.45,
      description: "JSON tool output",
    });
    expect(answer.body.versions[2]).toMatchObject({ version: 3, description: null });
  });

  it("optional fields default: required_fields [] and description null", async () => {
    const answer = await put("text", { min_size_bytes: 0, min_semantic_density: 0, max_pass_number: 0 });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ version: 1, required_fields: [], description: null, min_size_bytes: 0 });
    // Sending the defaults explicitly is the same policy.
    expect(
      (
        await put("text", {
          min_size_bytes: 0,
          min_semantic_density: 0,
          max_pass_number: 0,
          required_fields: [],
          description: null,
        })
      ).status,
    ).toBe(200);
  });

  it("lists the policy in force of every class", async () => {
    const answer = await call(listPolicies, jsonRequest("/api/v1/policies"));
    expect(
      answer.body.items.map((p: { content_class: string; version: number }) => [p.content_class, p.version]),
    ).toEqual([
      ["json", 5],
      ["text", 1],
    ]);
  });

  it("classes are independent", async () => {
    expect((await put("yaml", floorA)).body.version).toBe(1);
    expect((await get("json")).body.version).toBe(5);
  });

  it("concurrent identical PUTs make one version; concurrent different PUTs make dense versions", async () => {
    const same = await Promise.all(Array.from({ length: 5 }, () => put("race", floorA)));
    expect(same.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const different = await Promise.all([1, 2, 3, 4].map((n) => put("race", { ...floorA, max_pass_number: 10 + n })));
    expect(different.map((a) => a.body.version).sort()).toEqual([2, 3, 4, 5]);
    expect((await get("race")).body.versions.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1]);
  });

  it("floors up to 2^53-1 and densities are read back exactly", async () => {
    const body = {
      min_size_bytes: Number.MAX_SAFE_INTEGER,
      min_semantic_density: 0.1 + 0.2,
      max_pass_number: Number.MAX_SAFE_INTEGER,
    };
    expect((await put("huge", body)).status).toBe(201);
    expect((await get("huge")).body).toMatchObject(body);
    expect((await put("huge", body)).status).toBe(200);
  });

  it.each([
    ["a/b", "slash"],
    ["", "empty"],
    ["-lead", "leading dash"],
    ["x".repeat(65), "too long"],
    ["sp ace", "space"],
    ["caf\u00e9", "non-ASCII"],
  ])("refuses content class %j (%s) in the URL with 422, writing nothing", async (contentClass) => {
    const before = await countRows();
    const answer = await put(contentClass, floorA);
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toEqual(["content_class"]);
    expectError(await get(contentClass), 422, "validation_failed");
    expect(await countRows()).toEqual(before);
  });

  it.each([
    [{ ...floorA, min_semantic_density: 1.5 }, "min_semantic_density"],
    [{ ...floorA, min_semantic_density: -0.1 }, "min_semantic_density"],
    [{ ...floorA, min_size_bytes: -1 }, "min_size_bytes"],
    [{ ...floorA, min_size_bytes: 1.5 }, "min_size_bytes"],
    [{ ...floorA, min_size_bytes: "512" }, "min_size_bytes"],
    [{ ...floorA, max_pass_number: 2 ** 53 }, "max_pass_number"],
    [{ ...floorA, max_pass_number: null }, "max_pass_number"],
    [{ ...floorA, required_fields: "a.b" }, "required_fields"],
    [{ ...floorA, required_fields: [""] }, "required_fields.0"],
    [{ ...floorA, required_fields: ["ok", 3] }, "required_fields.1"],
    [{ ...floorA, description: "x".repeat(2049) }, "description"],
    [{ ...floorA, description: "nul\u0000" }, "description"],
    [{ min_size_bytes: 1, min_semantic_density: 0.1 }, "max_pass_number"],
  ])("refuses an invalid body (%j) naming %s, writing nothing", async (body, field) => {
    const before = await countRows();
    const answer = await put("json", body);
    expectError(answer, 422, "validation_failed");
    expect(issuePaths(answer)).toContain(field);
    expect(await countRows()).toEqual(before);
  });

  it("refuses an array body", async () => {
    expectError(await put("json", [floorA]), 422, "validation_failed");
  });

  it("GET /policies pages by content class with limit and cursor, every class once", async () => {
    const everything = await call(listPolicies, jsonRequest("/api/v1/policies?limit=500"));
    const classes = everything.body.items.map((p: { content_class: string }) => p.content_class);
    expect(classes.length).toBeGreaterThanOrEqual(5);
    expect(everything.body.next_cursor).toBeNull();
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(
        listPolicies,
        jsonRequest(`/api/v1/policies?limit=2${cursor ? `&cursor=${cursor}` : ""}`),
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.items.map((p: { content_class: string }) => p.content_class));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(classes);
  });

  it.each(["limit=0", "limit=501", "limit=abc", `cursor=${Buffer.from("[1]").toString("base64url")}`, "cursor=%%"])(
    "GET /policies?%s is 422",
    async (query) => {
      expectError(await call(listPolicies, jsonRequest(`/api/v1/policies?${query}`)), 422, "invalid_query");
    },
  );
  it("retention_days: kept by a save that leaves it out, cleared by null, refused when not a positive whole number", async () => {
    expect((await put("kept", { ...floorA, retention_days: 7 })).body).toMatchObject({ version: 1, retention_days: 7 });
    // A floor saved without it (as the dashboard's editor saves) keeps the class's days.
    expect((await put("kept", floorB)).body).toMatchObject({ version: 2, retention_days: 7 });
    // The same floor and days again is the version in force; only the days changing is a new version.
    expect(await put("kept", { ...floorB, retention_days: 7 })).toMatchObject({ status: 200, body: { version: 2 } });
    expect((await put("kept", { ...floorB, retention_days: 30 })).body).toMatchObject({
      version: 3,
      retention_days: 30,
    });
    expect((await put("kept", { ...floorB, retention_days: null })).body).toMatchObject({
      version: 4,
      retention_days: null,
    });
    expect((await get("kept")).body).toMatchObject({ version: 4, retention_days: null });
    expect((await get("never-kept")).body).toMatchObject({ version: 0, retention_days: null });
    for (const bad of [0, -1, 1.5, "7", 36_501]) {
      const answer = await put("kept", { ...floorB, retention_days: bad });
      expectError(answer, 422, "validation_failed");
      expect(issuePaths(answer)).toContain("retention_days");
    }
    expect((await get("kept")).body).toMatchObject({ version: 4 });
  });
});
