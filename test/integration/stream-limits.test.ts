// The event streams' limits: the per-process cap holds when many streams open at once, and
// one caller (an API key, an operator session) cannot hold more than its own share.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as chainEvents } from "@/app/api/v1/chains/[chain_id]/events/route";
import { ingestPasses } from "@/db/ingest/passes";
import { createApiKey, forgetCredentialsCache } from "@/db/queries/access";
import type { PassReceipt } from "@/lib/schemas/passes";
import { params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const receipt: PassReceipt = {
  chain_id: "capped",
  pass_id: "capped.p1",
  pass_number: 1,
  input_content_hash: null,
  current_content_hash: "h1",
  current_size_bytes: 100,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  content_class: "default",
  created_at: null,
  metadata: null,
  verdict: null,
  manifest_digest: null,
};

interface Opened {
  abort: AbortController;
  response: Response;
}
const opened: Opened[] = [];

async function open(headers: Record<string, string> = {}): Promise<Opened> {
  const abort = new AbortController();
  const response = await chainEvents(
    new Request("http://localhost/api/v1/chains/capped/events", { signal: abort.signal, headers }),
    params({ chain_id: "capped" }),
  );
  const stream = { abort, response };
  if (response.status === 200) opened.push(stream);
  return stream;
}

async function close(stream: Opened): Promise<void> {
  stream.abort.abort();
  const reader = stream.response.body?.getReader();
  if (reader) for (;;) if ((await reader.read()).done) break;
  opened.splice(opened.indexOf(stream), 1);
}

beforeAll(async () => {
  forgetCredentialsCache();
  await ingestPasses([receipt]);
});
afterEach(async () => {
  await Promise.all([...opened].map(close));
  delete process.env.FLOORLINE_MAX_EVENT_STREAMS;
  delete process.env.FLOORLINE_MAX_EVENT_STREAMS_PER_CALLER;
});
afterAll(() => forgetCredentialsCache());

describe("event stream limits", () => {
  it("never holds more than the cap, however many streams open at once", async () => {
    process.env.FLOORLINE_MAX_EVENT_STREAMS = "3";
    const answers = await Promise.all(Array.from({ length: 12 }, () => open()));
    const statuses = answers.map((a) => a.response.status);
    expect(statuses.filter((s) => s === 200).length).toBe(3);
    expect(statuses.filter((s) => s === 429).length).toBe(9);
    const refused = answers.find((a) => a.response.status === 429);
    expect(refused?.response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused?.response.json()).toMatchObject({ error: { code: "too_many_requests" } });
    // Every refused open gave its place back: closing one admits exactly one more.
    const first = opened[0];
    if (!first) throw new Error("no open stream");
    await close(first);
    const more = await Promise.all(Array.from({ length: 4 }, () => open()));
    expect(more.map((a) => a.response.status).sort()).toEqual([200, 429, 429, 429]);
  });

  it("gives one API key at most its share; another key still gets a stream", async () => {
    process.env.FLOORLINE_MAX_EVENT_STREAMS_PER_CALLER = "2";
    const a = (await createApiKey({ name: "reader-a", scopes: ["read"], createdBy: null })).key;
    const b = (await createApiKey({ name: "reader-b", scopes: ["read"], createdBy: null })).key;
    const asA = { authorization: `Bearer ${a}` };
    const answers = await Promise.all(Array.from({ length: 6 }, () => open(asA)));
    const statuses = answers.map((x) => x.response.status);
    expect(statuses.filter((s) => s === 200).length).toBe(2);
    const refused = answers.find((x) => x.response.status === 429);
    expect(refused?.response.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = await refused?.response.json();
    expect(body).toMatchObject({ error: { code: "too_many_requests" } });
    expect(body.error.message).toContain("credential");

    expect((await open({ authorization: `Bearer ${b}` })).response.status).toBe(200);
    // Closing one of A's streams frees one of A's places.
    const mine = opened.find((x) => answers.includes(x));
    if (!mine) throw new Error("no stream of A's");
    await close(mine);
    expect((await open(asA)).response.status).toBe(200);
    expect((await open(asA)).response.status).toBe(429);
  });
});
