// A local HTTP server that answers as a model provider's API documents, for the real clients
// (@anthropic-ai/sdk, openai) to talk to: a fake of the API over HTTP, never a mock of the SDK.
// Streamed answers are Server-Sent Events as the Messages API sends them: `event: <type>` and
// `data: <the event as JSON>`, one blank line after each.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ApiRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export type ApiAnswer =
  | { json: unknown; status?: number }
  /** SSE events, then, with `error`, an `error` event (the stream fails there). */
  | { events: Array<Record<string, unknown>>; error?: Record<string, unknown> };

export interface FakeApi {
  url: string;
  requests: ApiRequest[];
  close(): Promise<void>;
}

export async function fakeApi(answer: (request: ApiRequest) => ApiAnswer): Promise<FakeApi> {
  const requests: ApiRequest[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const request = { path: req.url ?? "", headers: req.headers, body: JSON.parse(text || "{}") };
      requests.push(request);
      const a = answer(request);
      if ("json" in a) {
        res.writeHead(a.status ?? 200, { "content-type": "application/json", "request-id": `req_${requests.length}` });
        res.end(JSON.stringify(a.json));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "request-id": `req_${requests.length}` });
      for (const event of a.events) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
      if (a.error) res.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: a.error })}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * A Messages API answer as a stream of events, the shapes of the SDK's BetaRawMessageStreamEvent:
 * `message_start` (the message with no content yet), per block a `content_block_start`, its
 * delta (`compaction_delta` carries a compaction block's whole content) and
 * `content_block_stop`, then `message_delta` (stop reason, usage, `context_management`) and
 * `message_stop`.
 */
export function messageEvents(message: {
  id: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  summary?: string | null;
  text?: string;
  appliedEdits?: Array<Record<string, unknown>>;
}): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: message.id,
        type: "message",
        role: "assistant",
        model: message.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: message.inputTokens, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (message.summary !== undefined) {
    events.push(
      {
        type: "content_block_start",
        index,
        content_block: { type: "compaction", content: null, encrypted_content: null },
      },
      {
        type: "content_block_delta",
        index,
        delta: { type: "compaction_delta", content: message.summary, encrypted_content: "Eo8BCkgI..." },
      },
      { type: "content_block_stop", index },
    );
    index++;
  }
  if (message.text !== undefined) {
    const half = Math.ceil(message.text.length / 2);
    events.push(
      { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index, delta: { type: "text_delta", text: message.text.slice(0, half) } },
      { type: "content_block_delta", index, delta: { type: "text_delta", text: message.text.slice(half) } },
      { type: "content_block_stop", index },
    );
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: message.outputTokens },
      context_management: message.appliedEdits ? { applied_edits: message.appliedEdits } : null,
    },
    { type: "message_stop" },
  );
  return events;
}
