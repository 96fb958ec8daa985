// @floorline/sdk/anthropic: the Anthropic client, observed. Each response's context edits
// (clear_tool_uses, clear_thinking, applied by the API where the client cannot read the result)
// and each compaction block (a summary the client holds) become passes of the chain.
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
 * and answers the client. Their answers are untouched: the same promise (an APIPromise, with
 * withResponse() and asResponse()) comes back, and the recording runs after it resolves.
 * Streamed calls (`stream: true`) pass through unrecorded.
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
          if (isObject(params) && params.stream !== true && isThenable(answer)) {
            answer.then(
              (response) => later("cannot record an Anthropic response", () => record(chain(), params, response)),
              () => undefined,
            );
          }
        } catch (error) {
          warnOnce("cannot observe an Anthropic call", error);
        }
        return answer;
      };
      creator[OBSERVED] = true;
    }
  } catch (error) {
    warnOnce("cannot observe the Anthropic client", error);
  }
  return client;
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
