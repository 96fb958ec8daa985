// @floorline/sdk/anthropic: the Anthropic client, observed. Each response's context edits
// (clear_tool_uses, clear_thinking, applied by the API where the client cannot read the result)
// and each compaction block (a summary the client holds) become passes of the chain, whether
// the response comes whole or as a stream of events.
import type { Floorline } from "../client";
import { messagesText } from "./messages";
import { type IntegrationOptions, later, openChain, recordCompactionNow, recordOpaqueNow, warnOnce } from "./record";

export interface ObserveAnthropicOptions {
  /** The conversation: one chain per conversation you keep with the client. */
  chainId: string;
  /** Default `anthropic`. */
  contentClass?: string;
  resumeAfter?: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const OBSERVED = Symbol.for("floorline.anthropic.observed");

interface Creator {
  create: (...args: unknown[]) => unknown;
  [OBSERVED]?: true;
}

/**
 * Observes `client.messages.create` and `client.beta.messages.create` of this client (in place)
 * and answers the client. Their answers are untouched: an APIPromise of the same response (with
 * withResponse() and asResponse()), and the recording runs once the caller has the message.
 * A streamed call (`stream: true`, and `messages.stream()`, which calls `create`) gives the
 * caller the same stream and the same events; its compactions are read from the events as they
 * pass and recorded when the message ends.
 */
export function observeAnthropic<C>(fl: Floorline, client: C, options: ObserveAnthropicOptions): C {
  try {
    const resources = [
      (client as { messages?: unknown }).messages,
      (client as { beta?: { messages?: unknown } }).beta?.messages,
    ];
    const opened = { chain: undefined as ReturnType<typeof openChain> | undefined };
    const chain = () => {
      opened.chain ??= openChain(fl, options as IntegrationOptions, "anthropic");
      return opened.chain;
    };
    for (const resource of resources) {
      if (!isObject(resource) || typeof resource.create !== "function") continue;
      const creator = resource as unknown as Creator;
      if (creator[OBSERVED]) continue;
      const original = creator.create;
      creator.create = function observedCreate(this: unknown, ...args: unknown[]) {
        const answer = original.apply(this === undefined || this === creator ? resource : this, args);
        try {
          const params = args[0];
          if (!isObject(params)) return answer;
          const recordLater = (message: unknown) =>
            later("cannot record an Anthropic response", () => record(chain(), params, message));
          return observed(answer, params.stream === true ? (s) => observeStream(s, recordLater) : recordLater);
        } catch (error) {
          warnOnce("cannot observe an Anthropic call", error);
          return answer;
        }
      };
      creator[OBSERVED] = true;
    }
  } catch (error) {
    warnOnce("cannot observe the Anthropic client", error);
  }
  return client;
}

interface APIPromiseLike {
  _thenUnwrap: (transform: (data: unknown) => unknown) => unknown;
}

/**
 * The answer, seen by `see` when the caller reads it. An APIPromise is chained with its own
 * `_thenUnwrap` (as the SDK's create chains its tracing): an APIPromise of the same response,
 * parsed only when the caller reads it, so `asResponse()` still gets an unread body. Any other
 * promise is watched beside the caller.
 */
function observed(answer: unknown, see: (data: unknown) => void): unknown {
  const look = (data: unknown) => {
    try {
      see(data);
    } catch (error) {
      warnOnce("cannot observe an Anthropic response", error);
    }
    return data;
  };
  if (isThenable(answer) && typeof (answer as Partial<APIPromiseLike>)._thenUnwrap === "function")
    return (answer as unknown as APIPromiseLike)._thenUnwrap(look);
  if (isThenable(answer)) answer.then(look, () => undefined);
  return answer;
}

/**
 * Watches a Stream's events in place: every way to read it (for await, tee(), toReadableStream())
 * goes through its async iterator, so the one the caller gets passes each event on as it came
 * and keeps what a compaction needs. When the message ends, or the caller stops reading, or the
 * stream fails, `done` gets what was seen, once: the applied edits and the compaction blocks
 * the stream finished.
 */
function observeStream(stream: unknown, done: (message: Json) => void): void {
  if (!isObject(stream)) return;
  const own = (stream as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator];
  if (typeof own !== "function") return;
  const iterate = own.bind(stream) as () => AsyncIterator<unknown>;
  Object.defineProperty(stream, Symbol.asyncIterator, {
    value: () => watched(iterate(), done),
    configurable: true,
    writable: true,
  });
}

function watched(events: AsyncIterator<unknown>, done: (message: Json) => void): AsyncIterator<unknown> {
  const seen = new StreamedMessage();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (seen.hasCompaction()) done(seen.message());
  };
  const iterator: AsyncIterator<unknown> & AsyncIterable<unknown> = {
    next: (...args: [] | [unknown]) =>
      events.next(...args).then(
        (result) => {
          if (result.done) end();
          else {
            try {
              seen.add(result.value);
            } catch (error) {
              warnOnce("cannot read an Anthropic stream event", error);
            }
            if (seen.stopped) end();
          }
          return result;
        },
        (error: unknown) => {
          end();
          throw error;
        },
      ),
    return: (value?: unknown) => {
      end();
      return events.return ? events.return(value) : Promise.resolve({ done: true as const, value });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  if (events.throw) {
    const rethrow = events.throw.bind(events);
    iterator.throw = (error?: unknown) => {
      end();
      return rethrow(error);
    };
  }
  return iterator;
}

const USAGE_KEYS = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"];

/**
 * What a stream of Messages API events said about compaction, as the fields of a message:
 * `message_start` (id, model, usage), compaction blocks (`content_block_start`, then a
 * `compaction_delta` that carries the block's final content, then `content_block_stop`), and
 * `message_delta` (usage totals, `context_management.applied_edits`). The events are the
 * caller's too: nothing here keeps or changes them, only copies.
 */
class StreamedMessage {
  private id: unknown;
  private model: unknown;
  private readonly usage: Json = {};
  private contextManagement: unknown;
  private readonly open = new Map<number, Json>();
  private readonly finished: Json[] = [];
  stopped = false;

  add(event: unknown): void {
    if (!isObject(event)) return;
    switch (event.type) {
      case "message_start": {
        const message = isObject(event.message) ? event.message : {};
        this.id = message.id;
        this.model = message.model;
        this.takeUsage(message.usage);
        break;
      }
      case "content_block_start":
        if (isObject(event.content_block) && event.content_block.type === "compaction")
          this.open.set(Number(event.index), { ...event.content_block });
        break;
      case "content_block_delta": {
        const block = this.open.get(Number(event.index));
        const delta = isObject(event.delta) ? event.delta : {};
        if (block && delta.type === "compaction_delta") {
          block.content = delta.content;
          if ("encrypted_content" in delta) block.encrypted_content = delta.encrypted_content;
        }
        break;
      }
      case "content_block_stop": {
        const block = this.open.get(Number(event.index));
        if (block) {
          this.finished.push(block);
          this.open.delete(Number(event.index));
        }
        break;
      }
      case "message_delta":
        this.takeUsage(event.usage);
        if (isObject(event.context_management)) this.contextManagement = event.context_management;
        break;
      case "message_stop":
        this.stopped = true;
        break;
    }
  }

  /** Usage counters are whole-message totals, sent again when they change: the last one counts. */
  private takeUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    for (const key of USAGE_KEYS) if (typeof usage[key] === "number") this.usage[key] = usage[key];
  }

  hasCompaction(): boolean {
    const edits = isObject(this.contextManagement) ? this.contextManagement.applied_edits : undefined;
    return this.finished.length > 0 || (Array.isArray(edits) && edits.length > 0);
  }

  message(): Json {
    return {
      id: this.id,
      model: this.model,
      usage: this.usage,
      context_management: this.contextManagement,
      content: this.finished,
    };
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === "object" || typeof v === "function") &&
    v !== null &&
    typeof (v as { then?: unknown }).then === "function"
  );
}

const BYTES = (s: string) => Buffer.byteLength(s, "utf8");

function record(chain: ReturnType<typeof openChain>, params: Json, response: unknown): void {
  if (!chain || !isObject(response)) return;
  const messages = Array.isArray(params.messages) ? params.messages : null;
  const input = messages && messages.length > 0 ? messagesText(messages) : null;
  const usage = isObject(response.usage) ? response.usage : {};
  const tokensAfter = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]
    .map((k) => (typeof usage[k] === "number" ? (usage[k] as number) : 0))
    .reduce((a, b) => a + b, 0);
  const base = {
    message_id: typeof response.id === "string" ? response.id : undefined,
    model: typeof response.model === "string" ? response.model : undefined,
  };

  const edits = isObject(response.context_management) ? response.context_management.applied_edits : undefined;
  for (const edit of Array.isArray(edits) ? edits : []) {
    if (!isObject(edit)) continue;
    const cleared = typeof edit.cleared_input_tokens === "number" ? edit.cleared_input_tokens : 0;
    const tokensBefore = tokensAfter + cleared;
    // The edit is applied on the API's side: the request's text is what it started from, and
    // the share of tokens left is all that says how big the result was.
    const estimated = input !== null && tokensBefore > 0 ? (BYTES(input) * tokensAfter) / tokensBefore : undefined;
    recordOpaqueNow(chain, {
      input,
      output: null,
      ...(estimated === undefined ? {} : { estimatedSizeBytes: estimated }),
      metadata: {
        ...base,
        framework: "anthropic",
        edit: edit.type,
        cleared_input_tokens: cleared,
        ...(typeof edit.cleared_tool_uses === "number" ? { cleared_tool_uses: edit.cleared_tool_uses } : {}),
        ...(typeof edit.cleared_thinking_turns === "number"
          ? { cleared_thinking_turns: edit.cleared_thinking_turns }
          : {}),
        input_tokens_before: tokensBefore,
        input_tokens_after: tokensAfter,
      },
    });
  }

  const content = Array.isArray(response.content) ? response.content : [];
  for (const block of content) {
    if (!isObject(block) || block.type !== "compaction") continue;
    const summary = typeof block.content === "string" ? block.content : null;
    const metadata = { ...base, framework: "anthropic", block: "compaction", summarized_messages: messages?.length };
    if (summary === null) {
      // The API failed to summarize (content null): the encrypted state is all there is.
      const opaque = typeof block.encrypted_content === "string" ? block.encrypted_content : null;
      recordOpaqueNow(chain, { input, output: opaque, metadata: { ...metadata, summary: "none" } });
    } else {
      recordCompactionNow(chain, { input, output: summary, metadata });
    }
  }
}
