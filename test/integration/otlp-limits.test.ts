// The OTLP export limits through the real handler: an upload holds no place while its body
// arrives (slow exporters cannot refuse everyone else), and one caller cannot take every place.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as otlpPost } from "@/app/api/v1/otlp/v1/traces/route";
import { createApiKey, forgetCredentialsCache } from "@/db/queries/access";
import { callerOf, type Slot } from "@/lib/http/slots";
import { exportSlots } from "@/lib/otlp/admission";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const EMPTY_EXPORT = '{"resourceSpans":[]}';

function exportRequest(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/api/v1/otlp/v1/traces", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
    duplex: "half",
  } as RequestInit);
}

const post = (request: Request) => otlpPost(request, { params: Promise.resolve({}) });

/** An upload whose body arrives only when `finish()` is called. */
function slowUpload(headers: Record<string, string> = {}) {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(new TextEncoder().encode('{"resourceSpans":'));
    },
  });
  const answer = post(exportRequest(body, headers));
  return {
    answer,
    finish() {
      controller?.enqueue(new TextEncoder().encode("[]}"));
      controller?.close();
    },
  };
}

const held: Slot[] = [];
afterEach(() => {
  for (const slot of held.splice(0)) slot.release();
  delete process.env.FLOORLINE_MAX_OTLP_EXPORTS;
  delete process.env.FLOORLINE_MAX_OTLP_EXPORTS_PER_CALLER;
});
beforeAll(() => forgetCredentialsCache());
afterAll(() => forgetCredentialsCache());

function hold(caller: string | null, count: number) {
  for (let i = 0; i < count; i++) {
    const slot = exportSlots().take(caller, { global: 1_000, perCaller: 1_000 });
    if (typeof slot === "string") throw new Error(`could not hold a place: ${slot}`);
    held.push(slot);
  }
}

describe("OTLP export limits", () => {
  it("holds no place while a body uploads: slow uploads leave room for other exports", async () => {
    process.env.FLOORLINE_MAX_OTLP_EXPORTS = "2";
    const slow = Array.from({ length: 4 }, () => slowUpload());
    await new Promise((r) => setTimeout(r, 200));
    const quick = await post(exportRequest(EMPTY_EXPORT));
    expect(quick.status, await quick.clone().text()).toBe(200);
    // Each, once its body is in, takes a place like any other export.
    for (const upload of slow) {
      upload.finish();
      expect((await upload.answer).status).toBe(200);
    }
    expect(exportSlots().inUse()).toBe(0);
  });

  it("refuses past the global limit with 429 and Retry-After in the error contract", async () => {
    process.env.FLOORLINE_MAX_OTLP_EXPORTS = "2";
    hold(null, 2);
    const refused = await post(exportRequest(EMPTY_EXPORT));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ error: { code: "too_many_requests" } });
    for (const slot of held.splice(0)) slot.release();
    expect((await post(exportRequest(EMPTY_EXPORT))).status).toBe(200);
  });

  it("gives one API key at most its share of places; another key still exports", async () => {
    process.env.FLOORLINE_MAX_OTLP_EXPORTS_PER_CALLER = "2";
    const a = await createApiKey({ name: "exporter-a", scopes: ["ingest"], createdBy: null });
    const b = await createApiKey({ name: "exporter-b", scopes: ["ingest"], createdBy: null });
    hold(callerOf({ kind: "key", id: a.id, name: a.name, scopes: ["ingest"] }), 2);
    const refused = await post(exportRequest(EMPTY_EXPORT, { authorization: `Bearer ${a.key}` }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = await refused.json();
    expect(body).toMatchObject({ error: { code: "too_many_requests" } });
    expect(body.error.message).toContain("credential");
    expect((await post(exportRequest(EMPTY_EXPORT, { authorization: `Bearer ${b.key}` }))).status).toBe(200);
    held.pop()?.release();
    expect((await post(exportRequest(EMPTY_EXPORT, { authorization: `Bearer ${a.key}` }))).status).toBe(200);
  });
});
