// The demo data shows a checked mismatch: a client that claims "schema valid" for content
// that misses a required field of its policy.
import { describe, expect, it } from "vitest";
import { getChain, listChains } from "@/db/queries/chains";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase({ from: "demo" });

describe("demo-content-check", () => {
  it("claims schema valid while its content misses a required field", async () => {
    const chain = await getChain("demo-content-check");
    const last = chain?.passes.at(-1);
    expect(last).toMatchObject({
      schema_valid: true,
      verdict: "SAFE_TO_COMPRESS",
      client_mismatch: false,
      checked_verdict: "FLOOR_BREACH_DETECTED",
      checked_mismatch: true,
      server_checks: {
        size_matches: true,
        hash_matches: true,
        parseable: true,
        schema_valid: false,
        problems: ["required field 'items.quantity' is missing (at items[17].quantity)"],
      },
    });
    const flagged = await listChains({ status: ["checked_mismatch"], sort: "last_activity", order: "desc", limit: 50 });
    expect(flagged.items.map((c) => c.chain_id)).toEqual(["demo-content-check"]);
  });
});
