// POST /api/v1/evaluate answers a batch the same way whichever path reads it: the byte path
// (a plainly valid ASCII batch, however it is formatted or chunked) and the general path
// (non-ASCII text, unknown fields) give the same status, headers and text, which is
// JSON.stringify of the guard's manifests; and the body's bytes are given back afterwards.
import { describe, expect, it } from "vitest";
import { POST as evaluate } from "@/app/api/v1/evaluate/route";
import { evaluateBatchBytes } from "@/lib/guard/batch/evaluate";
import { evaluatePass } from "@/lib/guard/guard";
import { bodyBytesInFlight } from "@/lib/http/body";
import { seededRandom } from "../support/random";
import { setUpTestDatabase } from "../support/database";
import { call } from "./api-helpers";

setUpTestDatabase();

const random = seededRandom(7);
const items = Array.from({ length: 400 }, (_, i) => ({
  pass: {
    pass_id: i % 50 === 7 ? `agent "quoted" \\ ${i}` : `agent-${i % 13}.pass-${i}`,
    pass_number: Math.floor(random() * 10),
    current_content_hash: `sha256:${i.toString(16).padStart(8, "0")}`,
    current_size_bytes: Math.floor(random() * 5_000),
    is_parseable: random() > 0.1,
    schema_valid: random() > 0.1,
    semantic_density_score: Math.round(random() * 1e4) / 1e4,
  },
  policy: { min_size_bytes: 512, min_semantic_density: 0.35, max_pass_number: 7 },
}));
const first = items[0] as (typeof items)[number];
const expected = JSON.stringify(items.map((item) => evaluatePass(item.pass, item.policy)));

function send(chunks: Uint8Array[]): Promise<{ status: number; headers: Headers; text: string }> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const request = new Request("http://localhost/api/v1/evaluate", {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
    duplex: "half",
  } as RequestInit);
  return call(evaluate, request);
}

const chunked = (text: string, size: number) => {
  const bytes = new TextEncoder().encode(text);
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
};

describe("POST /api/v1/evaluate: a batch, read either way", () => {
  const bodies: [name: string, text: string][] = [
    ["compact ASCII (the byte path)", JSON.stringify(items)],
    [
      "indented, keys reordered (the byte path)",
      JSON.stringify(items, ["policy", "pass", ...Object.keys(first.pass).reverse(), ...Object.keys(first.policy)], 2),
    ],
    ["a pass id in UTF-8 (the general path)", JSON.stringify(items).replace('"agent-1.pass-1"', '"agént-1.pass-1"')],
    [
      "an unknown field (the general path)",
      JSON.stringify(items.map((item, i) => (i === 5 ? { ...item, note: 1 } : item))),
    ],
  ];

  it.each(bodies)("%s: the guard's manifests, as JSON.stringify writes them", async (name, text) => {
    expect(evaluateBatchBytes(Buffer.from(text)) !== null).toBe(name.endsWith("(the byte path)"));
    const before = bodyBytesInFlight();
    const answer = await send(chunked(text, 1000));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store, no-transform");
    const manifests = JSON.parse(text).map((item: (typeof items)[number]) => evaluatePass(item.pass, item.policy));
    expect(answer.text).toBe(JSON.stringify(manifests));
    if (name.startsWith("compact")) expect(answer.text).toBe(expected);
    expect(bodyBytesInFlight()).toBe(before);
  });

  it("refuses a batch with one bad item whole, naming it, whichever path would have read the rest", async () => {
    const bad = items.map((item, i) =>
      i === 123 ? { ...item, policy: { ...item.policy, max_pass_number: -1 } } : item,
    );
    const answer = await send(chunked(JSON.stringify(bad), 4096));
    expect(answer.status).toBe(422);
    const error = JSON.parse(answer.text).error;
    expect(error.code).toBe("validation_failed");
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["123.policy.max_pass_number"]);
  });
});
