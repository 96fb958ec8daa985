// A receipt is declared once (the shape in lib/schemas/passes.ts). What is derived from it
// cannot miss a field; what cannot be derived is held to it here or by the compiler:
// - the fast path's checks, the OTLP attributes, the stored pass's columns and its wire
//   shape do not compile when a field is added to one and not the other (the type checks
//   beside them, and the ones below);
// - the judged row holds exactly the columns an insert writes;
// - the SDKs send no field the declaration lacks (the server would not store it).
import { readFileSync } from "node:fs";
import { getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { passes } from "@/db/schema/passes";
import { judgeReceipt } from "@/lib/guard/judge";
import { PASS_ATTRIBUTES } from "@/lib/otlp/receipts";
import { PASS_RECEIPT_FIELDS, type PassReceiptField, passReceiptSchema, passWireSchema } from "@/lib/schemas/passes";
import type { PassReceipt as SdkPassReceipt } from "@/sdk/typescript/src/receipt";

// The TypeScript SDK's receipt names only declared fields (a compile-time check).
const sdkFieldsAreDeclared: [Exclude<keyof SdkPassReceipt, PassReceiptField>] extends [never] ? true : false = true;

const receipt = passReceiptSchema.parse({
  chain_id: "c",
  pass_id: "c.p1",
  pass_number: 1,
  current_content_hash: "h1",
  current_size_bytes: 10,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
});
const POLICY = { min_size_bytes: 0, min_semantic_density: 0.1, max_pass_number: 9, version: 1 };

describe("a receipt's fields, declared once", () => {
  it("are the keys of the parsed receipt, in the declaration's order", () => {
    const full = Object.fromEntries(PASS_RECEIPT_FIELDS.map((f) => [f, (receipt as Record<string, unknown>)[f]]));
    expect(Object.keys(receipt)).toEqual(Object.keys(full).filter((f) => full[f] !== undefined));
    expect(sdkFieldsAreDeclared).toBe(true);
  });

  it("judge into a row with a value for exactly the columns an insert writes", () => {
    const row = judgeReceipt(receipt, POLICY) as Record<string, unknown>;
    const columns = Object.values(getTableColumns(passes))
      .filter((c) => !c.generated)
      .map((c) => c.name)
      // The database sets the id and the receipt time; the ingest adds the digest and the time.
      .filter((name) => !["id", "received_at", "body_digest", "created_at"].includes(name));
    expect(Object.keys(row).sort()).toEqual(columns.sort());
    for (const [key, value] of Object.entries(row)) expect(value, key).not.toBeUndefined();
  });

  it("that the stored pass keeps are fields of its wire shape", () => {
    const wire = Object.keys(passWireSchema.shape);
    const row = judgeReceipt(receipt, POLICY) as Record<string, unknown>;
    for (const field of PASS_RECEIPT_FIELDS) {
      if (field in row && !["verdict", "manifest_digest"].includes(field)) expect(wire, field).toContain(field);
    }
  });

  it("travel over OTLP under attributes of their own", () => {
    const attributes = Object.values(PASS_ATTRIBUTES);
    expect(new Set(attributes).size).toBe(attributes.length);
    for (const field of Object.keys(PASS_ATTRIBUTES)) expect(PASS_RECEIPT_FIELDS).toContain(field);
    const documented = readFileSync("docs/otlp.md", "utf8");
    for (const attribute of attributes) expect(documented, attribute).toContain(`\`${attribute}\``);
  });

  it("bound what the Python SDK sends", () => {
    const chain = readFileSync("sdk/python/src/floorline/chain.py", "utf8");
    const literal = chain.match(/receipt: dict\[str, Any\] = \{([\s\S]*?)\n {8}\}/)?.[1];
    expect(literal, "the Python SDK's receipt literal").toBeDefined();
    const keys = new Set([
      ...[...(literal ?? "").matchAll(/^\s*"(\w+)":/gm)].map((m) => m[1]),
      ...[...chain.matchAll(/receipt\["(\w+)"\] =/g)].map((m) => m[1]),
    ]);
    expect(keys.size).toBeGreaterThan(10);
    expect([...keys].filter((k) => !PASS_RECEIPT_FIELDS.includes(k as PassReceiptField))).toEqual([]);
  });
});
