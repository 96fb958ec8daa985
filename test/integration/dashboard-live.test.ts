// The chain event stream: a version event on connect, a change event when a pass arrives,
// 404 in the error contract for an unknown chain (unless the page asks to wait for it), the
// stream ends when the client goes, and past the per-process cap a new stream is refused
// (test/integration/stream-limits.test.ts: the caps under parallel opens and per caller).
import { describe, expect, it } from "vitest";
import { params, setUpTestDatabase } from "../support/database";
import { GET as chainEvents } from "@/app/api/v1/chains/[chain_id]/events/route";
import { ingestPasses } from "@/db/ingest/passes";
import { getSharedChainVersion, sharedChainReadCount } from "@/db/queries/chain-events";
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

  it("sends a change notified while a read of the chain is still shared", async () => {
    const shared = (n: number) => ({ ...receipt(n), chain_id: "shared", pass_id: `shared.p${n}` });
    await ingestPasses([shared(1)]);
    const abort = new AbortController();
    const response = await chainEvents(
      new Request("http://localhost/api/v1/chains/shared/events", { signal: abort.signal }),
      params({ chain_id: "shared" }),
    );
    const reader = response.body!.getReader();
    const buffer = { text: "" };
    let timer: NodeJS.Timeout | undefined;
    try {
      expect(await nextEvent(reader, buffer)).toMatchObject({ event: "version", data: { pass_count: 1 } });
      // A read shared with every stream of the chain, dated so that it stays shareable
      // throughout: the notification of the next pass must not be answered from it.
      expect(await getSharedChainVersion("shared", Date.now() + 10_000)).toMatchObject({ pass_count: 1 });

      await ingestPasses([shared(2)]);
      // Well inside the 15 s safety poll, which would find the change anyway.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no change event within 5 s")), 5_000);
      });
      expect(await Promise.race([nextEvent(reader, buffer), timeout])).toMatchObject({
        event: "change",
        data: { pass_count: 2 },
      });
    } finally {
      clearTimeout(timer);
      abort.abort();
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
    }
  });

  it("caps open streams per process: past the cap 429 with Retry-After, and a closed stream frees its place", async () => {
    await ingestPasses([receipt(1)]);
    process.env.FLOORLINE_MAX_EVENT_STREAMS = "2";
    const open = async () => {
      const abort = new AbortController();
      const response = await chainEvents(
        new Request("http://localhost/api/v1/chains/live/events", { signal: abort.signal }),
        params({ chain_id: "live" }),
      );
      return { abort, response };
    };
    const drain = async (response: Response) => {
      const reader = response.body?.getReader();
      if (!reader) return;
      for (;;) if ((await reader.read()).done) break;
    };
    try {
      const first = await open();
      const second = await open();
      expect([first.response.status, second.response.status]).toEqual([200, 200]);
      const refused = await open();
      expect(refused.response.status).toBe(429);
      expect(refused.response.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await refused.response.json()).error.code).toBe("too_many_requests");

      first.abort.abort();
      await drain(first.response);
      const again = await open();
      expect(again.response.status).toBe(200);
      second.abort.abort();
      again.abort.abort();
      await Promise.all([drain(second.response), drain(again.response)]);
    } finally {
      delete process.env.FLOORLINE_MAX_EVENT_STREAMS;
    }
  });

  it("streams of one chain share one read of its version at a time", async () => {
    await ingestPasses([receipt(1)]);
    const t = Date.now();
    const a = getSharedChainVersion("live", t);
    expect(getSharedChainVersion("live", t + 100)).toBe(a);
    const later = getSharedChainVersion("live", t + 1_000);
    expect(later).not.toBe(a);
    expect(await later).toMatchObject({ pass_count: expect.any(Number) });
  });

  it("forgets shared reads once they are too old to share, whatever the number of chains", async () => {
    // Each held read keeps the request it was made in alive: they must not pile up per chain.
    const t = Date.now() + 10_000;
    await Promise.all(Array.from({ length: 50 }, (_, i) => getSharedChainVersion(`gone-${i}`, t)));
    expect(sharedChainReadCount()).toBeGreaterThanOrEqual(50);
    await getSharedChainVersion("live", t + 1_000);
    expect(sharedChainReadCount()).toBe(1);
  });
});
