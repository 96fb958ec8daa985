// The chain event stream: a version event on connect, a change event when a pass arrives,
// 404 in the error contract for an unknown chain (unless the page asks to wait for it), and
// the stream ends when the client goes.
import { describe, expect, it } from "vitest";
import { params, setUpTestDatabase } from "../support/database";
import { GET as chainEvents } from "@/app/api/v1/chains/[chain_id]/events/route";
import { ingestPasses } from "@/db/ingest/passes";
import type { PassReceipt } from "@/lib/schemas/passes";

setUpTestDatabase();

const receipt = (n: number): PassReceipt => ({
  chain_id: "live",
  pass_id: `live.p${n}`,
  pass_number: n,
  input_content_hash: null,
  current_content_hash: `h${n}`,
  current_size_bytes: 10_000 - n,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  content_class: "default",
  created_at: null,
  metadata: null,
  verdict: null,
  manifest_digest: null,
});

async function nextEvent(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  buffer: { text: string },
): Promise<{ event: string; data: unknown }> {
  const decoder = new TextDecoder();
  for (;;) {
    const end = buffer.text.indexOf("\n\n");
    if (end >= 0) {
      const block = buffer.text.slice(0, end);
      buffer.text = buffer.text.slice(end + 2);
      if (block.startsWith(":")) continue;
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return { event, data: data ? JSON.parse(data) : null };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error("stream ended");
    buffer.text += decoder.decode(value, { stream: true });
  }
}

describe("chain event stream", () => {
  it("answers an unknown chain with 404 in the error contract", async () => {
    const response = await chainEvents(
      new Request("http://localhost/api/v1/chains/nope/events"),
      params({ chain_id: "nope" }),
    );
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("not_found");
  });

  it("with ?wait=1 keeps an unknown chain's stream open and sends a change on its first receipt", async () => {
    const abort = new AbortController();
    const response = await chainEvents(
      new Request("http://localhost/api/v1/chains/early/events?wait=1", { signal: abort.signal }),
      params({ chain_id: "early" }),
    );
    expect(response.status).toBe(200);
    if (!response.body) throw new Error("no body");
    const reader = response.body.getReader();
    const buffer = { text: "" };
    expect(await nextEvent(reader, buffer)).toMatchObject({ event: "waiting", data: { chain_id: "early" } });
    await ingestPasses([{ ...receipt(1), chain_id: "early", pass_id: "early.p1" }]);
    expect(await nextEvent(reader, buffer)).toMatchObject({ event: "change", data: { pass_count: 1 } });
    abort.abort();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });

  it("sends the chain's version, then a change when a pass arrives", async () => {
    await ingestPasses([receipt(1), receipt(2)]);
    const abort = new AbortController();
    const response = await chainEvents(
      new Request("http://localhost/api/v1/chains/live/events", { signal: abort.signal }),
      params({ chain_id: "live" }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = response.body!.getReader();
    const buffer = { text: "" };
    expect(await nextEvent(reader, buffer)).toMatchObject({
      event: "version",
      data: { pass_count: 2, last_pass_number: 2 },
    });

    await ingestPasses([receipt(3)]);
    expect(await nextEvent(reader, buffer)).toMatchObject({
      event: "change",
      data: { pass_count: 3, last_pass_number: 3, last_verdict: "SAFE_TO_COMPRESS" },
    });

    abort.abort();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});
