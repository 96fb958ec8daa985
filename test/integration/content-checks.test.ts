// Server-side content checks through the real /passes handler: the answer and the stored
// row carry server_checks and checked_verdict, a disagreement is flagged and filterable,
// the client's verdict and digest stay the reference's, and cache_original stores the content.
import { describe, expect, it } from "vitest";
import { GET as getChain } from "@/app/api/v1/chains/[chain_id]/route";
import { GET as listChains } from "@/app/api/v1/chains/route";
import { GET as getOriginal } from "@/app/api/v1/originals/[hash]/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { GET as getPolicyRoute, PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { evaluatePass } from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, contentReceipt, countRows, expectError, post } from "./api-helpers";

setUpTestDatabase();

const send = (body: unknown) => post(postPasses, "/api/v1/passes", body);
const putFloor = (contentClass: string, body: unknown) =>
  call(
    putPolicy,
    jsonRequest(`/api/v1/policies/${contentClass}`, { method: "PUT", body }),
    params({ content_class: contentClass }),
  );
const chain = (chainId: string) =>
  call(getChain, jsonRequest(`/api/v1/chains/${encodeURIComponent(chainId)}`), params({ chain_id: chainId }));

const FLOOR = { min_size_bytes: 100, min_semantic_density: 0.3, max_pass_number: 10 };
const orders = (items: object[]) => JSON.stringify({ id: "o-1", status: "open", items, note: "x".repeat(120) });
const good = orders([
  { sku: "a", quantity: 1 },
  { sku: "b", quantity: 2 },
]);
const missing = orders([{ sku: "a", quantity: 1 }, { sku: "b" }]);

const receipt = (chainId: string, passNumber: number, content: string, extra: Record<string, unknown> = {}) =>
  contentReceipt(chainId, passNumber, content, { semantic_density_score: 0.8, content_class: "cc-orders", ...extra });

describe("policies name a format", () => {
  it("PUT accepts format and decoded_format, GET shows them, and 'any' is the default", async () => {
    const put = await putFloor("cc-orders", {
      ...FLOOR,
      required_fields: ["id", "items.sku", "items.quantity"],
      format: "json",
    });
    expect(put.status, put.text).toBe(201);
    expect(put.body).toMatchObject({ format: "json", decoded_format: null });
    const blob = await putFloor("cc-blob", { ...FLOOR, format: "base64", decoded_format: "json" });
    expect(blob.body).toMatchObject({ format: "base64", decoded_format: "json" });
    const plain = await putFloor("cc-plain", FLOOR);
    expect(plain.body.format).toBe("any");
    const read = await call(
      getPolicyRoute,
      jsonRequest("/api/v1/policies/cc-orders"),
      params({ content_class: "cc-orders" }),
    );
    expect(read.body.format).toBe("json");
    expectError(await putFloor("cc-bad", { ...FLOOR, format: "yaml" }), 422, "validation_failed");
  });
});

describe("a receipt with content", () => {
  it("answers server_checks and checked_verdict; verdict and digest stay on the client's claims", async () => {
    const claims = receipt("cc-1", 2, missing, { verdict: "SAFE_TO_COMPRESS" });
    const answer = await send(claims);
    expect(answer.status, answer.text).toBe(201);
    const reference = evaluatePass(claims, FLOOR);
    expect(answer.body).toEqual({
      chain_id: "cc-1",
      pass_id: "cc-1.p2",
      verdict: reference.verdict,
      directive: reference.directive,
      manifest_digest: reference.manifest_digest,
      policy_version: 1,
      client_mismatch: false,
      server_checks: {
        size_matches: true,
        hash_matches: true,
        parseable: true,
        schema_valid: false,
        problems: ["required field 'items.quantity' is missing (at items[1].quantity)"],
      },
      checked_verdict: "FLOOR_BREACH_DETECTED",
      checked_mismatch: true,
    });
    expect(reference.verdict).toBe("SAFE_TO_COMPRESS");
  });

  it("stores the findings with the pass and flags the chain, filterable like a verdict mismatch", async () => {
    await send(receipt("cc-2", 2, good));
    const stored = await chain("cc-1");
    expect(stored.body.passes[0]).toMatchObject({
      server_checks: { schema_valid: false },
      checked_verdict: "FLOOR_BREACH_DETECTED",
      checked_mismatch: true,
    });
    expect(stored.body.checked_mismatches).toBe(1);
    const fine = await chain("cc-2");
    expect(fine.body.passes[0]).toMatchObject({
      server_checks: { size_matches: true, hash_matches: true, parseable: true, schema_valid: true, problems: [] },
      checked_verdict: "SAFE_TO_COMPRESS",
      checked_mismatch: false,
    });
    const flagged = await call(listChains, jsonRequest("/api/v1/chains?status=checked_mismatch"));
    expect(flagged.body.items.map((c: { chain_id: string }) => c.chain_id)).toEqual(["cc-1"]);
    expect(flagged.body.items[0].statuses).toContain("checked_mismatch");
    expect(flagged.body.items[0].checked_mismatches).toBe(1);
  });

  it("measures size and hash, and reads base64 then the decoded format", async () => {
    const wrongSize = await send(receipt("cc-3", 2, good, { current_size_bytes: 5 }));
    expect(wrongSize.body.server_checks.size_matches).toBe(false);
    expect(wrongSize.body.checked_mismatch).toBe(true);
    const wrongHash = await send(receipt("cc-3", 3, good, { current_content_hash: sha256Hex("other") }));
    expect(wrongHash.body.server_checks.hash_matches).toBe(false);
    const shortHash = await send(receipt("cc-3", 4, good, { current_content_hash: "h4" }));
    expect(shortHash.body.server_checks.hash_matches).toBeNull();
    const blob = Buffer.from(good).toString("base64");
    const decoded = await send(receipt("cc-4", 2, blob, { content_class: "cc-blob" }));
    expect(decoded.body.server_checks).toMatchObject({ parseable: true, schema_valid: true });
    const junk = Buffer.from("not json").toString("base64");
    const bad = await send(receipt("cc-4", 3, junk, { content_class: "cc-blob" }));
    expect(bad.body.server_checks.parseable).toBe(false);
    expect(bad.body.checked_verdict).toBe("FLOOR_BREACH_DETECTED");
  });

  it("leaves receipts without content exactly as before", async () => {
    const { content: _, ...plain } = receipt("cc-5", 2, good);
    const answer = await send(plain);
    expect(Object.keys(answer.body).sort()).toEqual(
      ["chain_id", "client_mismatch", "directive", "manifest_digest", "pass_id", "policy_version", "verdict"].sort(),
    );
    const stored = await chain("cc-5");
    expect(stored.body.passes[0]).toMatchObject({
      server_checks: null,
      checked_verdict: null,
      checked_mismatch: false,
    });
  });

  it("a retry is idempotent and a different content under the same key is a conflict", async () => {
    const before = await countRows();
    const again = await send(receipt("cc-1", 2, missing, { verdict: "SAFE_TO_COMPRESS" }));
    expect(again.status).toBe(200);
    expect(again.body.checked_mismatch).toBe(true);
    expectError(await send(receipt("cc-1", 2, good, { verdict: "SAFE_TO_COMPRESS" })), 409, "idempotency_conflict");
    expect(await countRows()).toEqual(before);
  });

  it("refuses content over 4 MiB and writes nothing", async () => {
    const before = await countRows();
    const huge = "x".repeat(4 * 1024 * 1024 + 1);
    const answer = await send(receipt("cc-6", 2, huge));
    const error = expectError(answer, 413, "payload_too_large");
    expect(error.issues?.[0]?.path).toBe("content");
    expect(await countRows()).toEqual(before);
  });

  it.each([70, 100_000])(
    "content of arrays nested %i deep under a policy with required fields is a 422, and writes nothing",
    async (depth) => {
      const before = await countRows();
      const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const error = expectError(await send(receipt("cc-deep", 2, deep)), 422, "validation_failed");
      expect(error.issues?.[0]?.path).toBe("content");
      expect(await countRows()).toEqual(before);
    },
  );

  it("cache_original stores the content as the pass's cached original", async () => {
    const answer = await send(receipt("cc-7", 2, good, { cache_original: true }));
    expect(answer.status).toBe(201);
    const hash = sha256Hex(good);
    const original = await call(getOriginal, jsonRequest(`/api/v1/originals/${hash}`), params({ hash }));
    expect(original.status, original.text).toBe(200);
    expect(original.body).toMatchObject({ original: good, chain_id: "cc-7", pass_id: "cc-7.p2" });
  });
});
