// docs/webhooks.md gives receivers a Python function to verify a delivery's signature. It runs
// here as written against headers signed the way deliveries are, so a change to the signature
// or to the snippet that makes them disagree fails.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { deliveryHeaders } from "@/lib/webhooks/signature";
import { blocksUnder } from "../support/markdown";

const snippet = blocksUnder("docs/webhooks.md", "# Webhooks").find((b) => b.lang === "python")?.code;

/** Runs the page's `verify` on one delivery and answers what it returned. */
function verify(secret: string, headers: Record<string, string>, body: string): string {
  const call = `\nimport json, sys\nargs = json.load(sys.stdin)\nprint(verify(args["secret"], args["headers"], args["body"].encode()))\n`;
  const result = spawnSync("python3", ["-c", `${snippet}${call}`], {
    input: JSON.stringify({ secret, headers, body }),
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe("docs/webhooks.md's signature check", () => {
  const secret = "whsec_docs-example";
  const body = JSON.stringify({ id: "evt_1", type: "chain.collapsed", data: { chain_id: "run-42" } });
  const now = Math.floor(Date.now() / 1000);

  it("is on the page", () => {
    expect(snippet).toContain("def verify(");
  });

  it("accepts a delivery signed as the server signs it, whatever the case of the header names", () => {
    const headers = deliveryHeaders(secret, { id: "evt_1", type: "chain.collapsed" }, body, now);
    expect(verify(secret, headers, body)).toBe("True");
    // As frameworks such as Flask present them.
    const capitalised = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase()), value]),
    );
    expect(capitalised["X-Floorline-Signature"]).toBeDefined();
    expect(verify(secret, capitalised, body)).toBe("True");
  });

  it("refuses another body, another secret, an old timestamp and a missing signature", () => {
    const headers = deliveryHeaders(secret, { id: "evt_1", type: "chain.collapsed" }, body, now);
    expect(verify(secret, headers, `${body} `)).toBe("False");
    expect(verify("whsec_other", headers, body)).toBe("False");
    const old = deliveryHeaders(secret, { id: "evt_1", type: "chain.collapsed" }, body, now - 3600);
    expect(verify(secret, old, body)).toBe("False");
    const { "x-floorline-signature": _, ...unsigned } = headers;
    expect(verify(secret, unsigned, body)).toBe("False");
  });
});
